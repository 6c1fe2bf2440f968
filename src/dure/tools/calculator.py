"""The `calculator` tool: arithmetic by walking the expression's syntax tree (never `eval`).

Only numbers, the four operations, `//`, `%` (a remainder between two numbers, a percent after
one: "2340 * 15%", "15% of 2340", "2340의 15%"), powers, parentheses and a few math functions
are understood; anything else (names, attributes, subscripts, lambdas…) is refused. Powers
and factorials are bounded before they are computed, and every intermediate integer is
bounded in size, so `9**9**9` is refused instantly instead of eating the server.
"""

from __future__ import annotations

import ast
import math
import operator
import re
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, Field

from dure.tools.base import Tool, ToolResult

MAX_EXPRESSION_CHARS = 300
#: Largest integer kept (bits; about 1,200 decimal digits).
MAX_INT_BITS = 4_000
MAX_FACTORIAL = 400
MAX_FLOAT_EXPONENT = 10_000

Number = int | float


class CalculatorError(ValueError):
    """A refused or invalid expression; the message is Korean, for the user."""


_BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
}
_UNARY: dict[type[ast.unaryop], Callable[[Any], Any]] = {
    ast.UAdd: operator.pos,
    ast.USub: operator.neg,
}
_CONSTANTS: dict[str, float] = {"pi": math.pi, "e": math.e, "tau": math.tau}


def _factorial(n: Number) -> int:
    if not float(n).is_integer() or n < 0:
        raise CalculatorError("팩토리얼은 0 이상의 정수에만 쓸 수 있습니다.")
    if n > MAX_FACTORIAL:
        raise CalculatorError(f"팩토리얼은 {MAX_FACTORIAL}!까지만 계산합니다.")
    return math.factorial(int(n))


_FUNCTIONS: dict[str, Callable[..., Number]] = {
    "abs": abs,
    "round": round,
    "min": min,
    "max": max,
    "sqrt": math.sqrt,
    "exp": math.exp,
    "log": math.log,
    "log10": math.log10,
    "log2": math.log2,
    "sin": math.sin,
    "cos": math.cos,
    "tan": math.tan,
    "floor": math.floor,
    "ceil": math.ceil,
    "factorial": _factorial,
}

# Symbols people type for arithmetic that Python spells differently.
_TRANSLATE = str.maketrans({"×": "*", "÷": "/", "−": "-", "（": "(", "）": ")"})
#: Shares as people write them: "2340 * 15%", "15% of 2340", "2340의 15%". A "%" after a number
#: and before no number is a percent ("7 % 3" stays the remainder); "의" / "of" between two
#: figures is a product (the 1.5B model computed "What is 15% of 2,340?" as 2340 * 15).
_PERCENT = re.compile(r"(\d+(?:\.\d+)?)\s*%(?!\s*[\d.(])")
_SHARE_OF = re.compile(r"(?<=[\d)])\s*(?:의|(?<![a-z])of(?![a-z]))\s*(?=[\d(])", re.IGNORECASE)


def _power(base: Number, exponent: Number) -> Number:
    """`base ** exponent`, refused when the result could not be held or printed."""
    if isinstance(base, int) and isinstance(exponent, int) and exponent >= 0:
        if abs(base) > 1 and exponent * math.log2(abs(base)) > MAX_INT_BITS:
            raise CalculatorError(
                "결과가 너무 큰 거듭제곱이라 계산하지 않습니다 (지수가 허용 범위를 넘습니다)."
            )
        return base**exponent
    if abs(exponent) > MAX_FLOAT_EXPONENT:
        raise CalculatorError("지수가 너무 커서 계산하지 않습니다.")
    try:
        result = float(base) ** float(exponent)
    except OverflowError:
        raise CalculatorError("결과가 너무 커서 계산할 수 없습니다.") from None
    if isinstance(result, complex):
        raise CalculatorError("음수의 분수 거듭제곱(복소수)은 계산하지 않습니다.")
    return result


def _checked(value: Any) -> Number:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise CalculatorError("숫자가 아닌 결과는 다루지 않습니다.")
    if isinstance(value, int) and value.bit_length() > MAX_INT_BITS:
        raise CalculatorError("결과가 너무 큰 수라 계산하지 않습니다.")
    return value


def _eval(node: ast.AST) -> Number:
    if isinstance(node, ast.Expression):
        return _eval(node.body)
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, int | float):
            raise CalculatorError(f"숫자가 아닌 값은 계산할 수 없습니다: {node.value!r}")
        return _checked(node.value)
    if isinstance(node, ast.BinOp):
        left, right = _eval(node.left), _eval(node.right)
        # `^` is what people type for a power; Python's XOR makes no sense in a calculator.
        if isinstance(node.op, ast.Pow | ast.BitXor):
            return _checked(_power(left, right))
        op = _BINARY.get(type(node.op))
        if op is None:
            raise CalculatorError("지원하지 않는 연산자입니다.")
        return _checked(op(left, right))
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        return _checked(_UNARY[type(node.op)](_eval(node.operand)))
    if isinstance(node, ast.Name):
        if node.id in _CONSTANTS:
            return _CONSTANTS[node.id]
        raise CalculatorError(f"알 수 없는 이름입니다: {node.id}")
    if isinstance(node, ast.Attribute) or (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
    ):
        raise CalculatorError("속성 접근(.)은 허용되지 않습니다. 숫자와 연산자만 쓸 수 있습니다.")
    if isinstance(node, ast.Call):
        if not isinstance(node.func, ast.Name) or node.func.id not in _FUNCTIONS:
            raise CalculatorError(
                f"지원하지 않는 함수입니다. 쓸 수 있는 함수: {', '.join(_FUNCTIONS)}"
            )
        if node.keywords:
            raise CalculatorError("함수에는 위치 인자만 쓸 수 있습니다.")
        args = [_eval(a) for a in node.args]
        return _checked(_FUNCTIONS[node.func.id](*args))
    raise CalculatorError(
        f"계산식에 쓸 수 없는 요소가 있습니다 ({type(node).__name__}). 숫자와 연산자만 쓸 수 있습니다."
    )


def _format(value: Number) -> str:
    if isinstance(value, float):
        if math.isinf(value):
            raise CalculatorError("결과가 너무 커서 계산할 수 없습니다.")
        if math.isnan(value):
            raise CalculatorError("결과가 정의되지 않는 값입니다.")
        if value.is_integer() and abs(value) < 1e15:
            return str(int(value))
        return format(value, ".12g")
    return str(value)


def evaluate(expression: str) -> str:
    """The value of an arithmetic expression as text, or `CalculatorError` (Korean message)."""
    text = _SHARE_OF.sub(
        " * ", _PERCENT.sub(r"(\1 / 100)", expression.strip().translate(_TRANSLATE))
    )
    if not text:
        raise CalculatorError("계산식이 비어 있습니다.")
    if len(text) > MAX_EXPRESSION_CHARS:
        raise CalculatorError(f"계산식이 너무 깁니다 (최대 {MAX_EXPRESSION_CHARS}자).")
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError:
        raise CalculatorError(f"계산식이 올바르지 않습니다: {expression!r}") from None
    try:
        return _format(_eval(tree))
    except ZeroDivisionError:
        raise CalculatorError("0으로 나눌 수 없습니다.") from None
    except OverflowError:
        raise CalculatorError("결과가 너무 커서 계산할 수 없습니다.") from None
    except (ValueError, TypeError) as e:
        if isinstance(e, CalculatorError):
            raise
        raise CalculatorError(f"계산할 수 없는 식입니다: {e}") from None


class CalculatorArgs(BaseModel):
    """Arguments of `calculator`."""

    expression: str = Field(
        description="계산식, 예: 123 * 456, (3 + 4) ** 2, sqrt(2), 2340 * 15% (퍼센트는 % 그대로)"
    )


def _calculate(expression: str) -> ToolResult:
    try:
        return ToolResult(ok=True, content=evaluate(expression))
    except CalculatorError as e:
        return ToolResult.fail(str(e))


def calculator_tool() -> Tool:
    """The `calculator` tool."""
    return Tool(
        name="calculator",
        description="수학 계산을 합니다 (사칙연산, 거듭제곱, sqrt·log·sin 등). 계산식을 넘기세요.",
        args_schema=CalculatorArgs,
        func=_calculate,
        timeout=5.0,
        own_output=True,
    )
