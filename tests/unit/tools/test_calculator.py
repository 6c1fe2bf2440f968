"""`calculator`: arithmetic by walking the syntax tree, bounded, with Korean refusals."""

from __future__ import annotations

import pytest

from dure.tools.base import ToolRegistry
from dure.tools.calculator import CalculatorError, calculator_tool, evaluate


@pytest.mark.parametrize(
    ("expression", "value"),
    [
        ("123 * 456", "56088"),
        ("(3 + 4) ** 2", "49"),
        ("2^10", "1024"),  # `^` is a power for people, not XOR
        ("10 / 4", "2.5"),
        ("10 / 2", "5"),
        ("7 // 2", "3"),
        ("7 % 3", "1"),
        ("-3 + +5", "2"),
        ("0.1 + 0.2", "0.3"),
        ("sqrt(16) + abs(-2)", "6"),
        ("max(3, 9, 4)", "9"),
        ("factorial(5)", "120"),
        ("2 × 3 ÷ 4", "1.5"),
        ("2 ** -2", "0.25"),
        ("10 ** 100", str(10**100)),
        ("round(pi, 2)", "3.14"),
        ("2340 * 15%", "351"),  # a percent after a number
        ("15% of 2340", "351"),
        ("2340의 15%", "351"),
        ("50%", "0.5"),
        ("1000 * (1 + 3.5%) ** 2", "1071.225"),
        ("7 %3", "1"),  # between two numbers: the remainder
    ],
)
def test_evaluates_arithmetic(expression: str, value: str) -> None:
    assert evaluate(expression) == value


@pytest.mark.parametrize(
    ("expression", "reason"),
    [
        ("9**9**9", "거듭제곱"),
        ("2 ** 100000", "거듭제곱"),
        ("10**1000 * 10**1000", "너무 큰"),
        ("factorial(100000)", "팩토리얼"),
        ("1.5 ** 1e9", "지수"),
        ("1e308 * 10", "너무 커서"),
        ("(1).__class__", "속성 접근"),
        ("().__class__.__bases__[0].__subclasses__()", "속성 접근"),
        ("__import__('os').system('id')", "속성 접근"),
        ("__import__('os')", "지원하지 않는 함수"),
        ("open('/etc/passwd')", "지원하지 않는 함수"),
        ("abc", "알 수 없는 이름"),
        ("[1, 2, 3]", "쓸 수 없는 요소"),
        ("lambda: 1", "쓸 수 없는 요소"),
        ("'a' * 3", "숫자가 아닌"),
        ("1 / 0", "0으로 나눌 수 없습니다"),
        ("1 +", "올바르지 않습니다"),
        ("", "비어 있습니다"),
        ("1" + "+1" * 400, "너무 깁니다"),
        ("(-8) ** (1/3)", "복소수"),
        ("sqrt(-1)", "계산할 수 없는 식"),
    ],
)
def test_refuses_with_a_korean_reason(expression: str, reason: str) -> None:
    with pytest.raises(CalculatorError, match=reason):
        evaluate(expression)


async def test_tool_result_is_a_failure_not_an_exception() -> None:
    registry = ToolRegistry([calculator_tool()])
    bomb = await registry.run("calculator", {"expression": "9**9**9"})
    assert not bomb.ok and "거듭제곱" in bomb.content
    attr = await registry.run("calculator", {"expression": "(1).__class__"})
    assert not attr.ok and "속성 접근" in attr.content
    ok = await registry.run("calculator", {"expression": "123 * 456"})
    assert ok.ok and ok.content == "56088"
