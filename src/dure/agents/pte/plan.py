"""The plan the planner compiles: its JSON schema and the checks that make it fail closed.

A plan is `{"plan": [{"step_id", "tool", "input" | "input_from"}, ...]}`. The fail-closed
table maps one-to-one onto `FailClosed` codes: invalid JSON, schema validation (including
references to steps that do not come earlier), and a tool not on the allow-list. The JSON
schema sent to the model lists the allowed tools as an enum so constrained decoding cannot
name another one; validation itself stays permissive on `tool` so a disallowed name is
reported as its own row, not as a schema error.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from functools import lru_cache
from typing import Annotated, Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage
from pydantic import BaseModel, ConfigDict, Field, ValidationError, create_model

from dure.agents.pte.state import PTEState
from dure.errors import ErrorCode
from dure.korean.particles import particle
from dure.llm.structured import StructuredOutputError, agenerate_structured

#: Upper bound on the steps of one plan (a runaway plan is a schema failure, not a long run).
MAX_STEPS = 8

_REF = re.compile(r"^step_([0-9]+)$")
#: A reference to an earlier step's output; the pattern is also in the JSON schema, so
#: constrained decoding can only write well-formed references (`[0-9]`, not `\d`: llama.cpp's
#: grammar parser rejects `\d`).
StepRef = Annotated[str, Field(pattern=_REF.pattern, max_length=12)]
#: A plan's reply: eight short steps fit (the schema's own worst case is far larger).
PLAN_MAX_TOKENS = 512
#: A literal input's length, and the arguments an input object may name (a plan stays short).
INPUT_CHARS = 200
ToolArgs = Annotated[
    dict[str, Annotated[str, Field(max_length=INPUT_CHARS)] | int | float | bool | None],
    Field(max_length=4),
]

#: The fail-closed table: code → the label that starts the error message (the seed's audit
#: wording), and what it means for the user, in Korean.
FAIL_CLOSED: dict[ErrorCode, tuple[str, str]] = {
    ErrorCode.INVALID_JSON: ("Invalid JSON", "계획이 올바른 JSON이 아니어서 실행하지 않았습니다."),
    ErrorCode.SCHEMA: (
        "Schema validation failed",
        "계획이 정해진 형식에 맞지 않아 실행하지 않았습니다.",
    ),
    ErrorCode.TOOL_NOT_ALLOWED: (
        "Tool not allowed",
        "허용되지 않은 도구가 계획에 있어 아무것도 실행하지 않았습니다.",
    ),
    ErrorCode.REPLAN_LIMIT: ("Replan limit exceeded", "재계획 한도를 넘어 멈췄습니다."),
    ErrorCode.INTENT: ("Intent classification failed", "요청의 의도를 분류하지 못해 멈췄습니다."),
}


class FailClosed(ValueError):
    """What stops the run at once: one row of the fail-closed table (plus a failed intent)."""

    def __init__(self, code: ErrorCode, detail: str = "") -> None:
        label = FAIL_CLOSED[code][0]
        super().__init__(f"{label}: {detail}" if detail else label)
        self.code = code

    def update(self) -> PTEState:
        """The state fields that stop the run: the message and its code."""
        return {"error": str(self), "error_code": self.code.value, "plan": []}


def step_dependencies(step: dict[str, Any]) -> list[int]:
    """The step ids whose outputs `step` takes (its `input_from`), in the order given."""
    refs = step.get("input_from")
    if refs is None:
        return []
    refs = [refs] if isinstance(refs, str) else refs
    return [int(m.group(1)) for r in refs if (m := _REF.match(r))]


class _Step(BaseModel):
    model_config = ConfigDict(extra="forbid")

    step_id: int = Field(ge=1, description="단계 번호 (1부터, 계획 안에서 유일)")
    tool: str = Field(max_length=40, description="사용할 도구 이름")


class InputStep(_Step):
    """A step whose input is written in the plan: a string or an object of named arguments."""

    input: Annotated[str, Field(max_length=INPUT_CHARS)] | ToolArgs = Field(
        description="도구 입력: 문자열, 또는 인자 이름→값 객체"
    )


class ChainedStep(_Step):
    """A step that takes earlier steps' outputs."""

    input_from: StepRef | Annotated[list[StepRef], Field(min_length=1, max_length=MAX_STEPS)] = (
        Field(description='앞 단계의 출력을 입력으로 쓸 때: "step_1" (여러 개면 목록)')
    )


#: One step: a tool and either a literal input or earlier steps' outputs — two shapes in the
#: JSON schema (`anyOf`, no extra keys), so constrained decoding cannot write both or neither.
PlanStep = InputStep | ChainedStep


class Plan(BaseModel):
    """What the planner (and re-planner) must answer."""

    model_config = ConfigDict(extra="forbid")

    plan: list[PlanStep] = Field(max_length=MAX_STEPS, description="실행할 단계 목록")


@lru_cache(maxsize=32)
def plan_schema(allowed: tuple[str, ...]) -> type[Plan]:
    """`Plan` whose JSON schema lists `allowed` as the only tool names (for constrained decoding)."""
    if not allowed:  # an empty enum is not a valid schema; the allow-list check still refuses
        return Plan
    tool = (str, Field(description="사용할 도구 이름", json_schema_extra={"enum": list(allowed)}))
    given = create_model("InputStep", __base__=InputStep, tool=tool)
    chained = create_model("ChainedStep", __base__=ChainedStep, tool=tool)
    return create_model(
        "Plan",
        __base__=Plan,
        plan=(list[given | chained], Field(max_length=MAX_STEPS, description="실행할 단계 목록")),
    )


def check_plan(
    plan: Plan, allowed: Collection[str], done: Iterable[int] = ()
) -> list[dict[str, Any]]:
    """The plan as state data, or `FailClosed`.

    `done` holds ids of steps that already succeeded (a re-plan may take their outputs but not
    reuse their ids). A reference must point to an earlier step or a done one, which also
    makes every plan acyclic and its list order a valid execution order. A plan in which no
    step refers to another has ids only as labels: duplicates are numbered again, in order.
    """
    done = set(done)
    for step in plan.plan:
        if step.tool not in allowed:
            raise FailClosed(
                ErrorCode.TOOL_NOT_ALLOWED,
                f"{step.tool} (허용된 도구: {', '.join(allowed) or '없음'})",
            )
    seen: set[int] = set()
    steps = [s.model_dump(exclude_none=True) for s in plan.plan]
    ids = [s["step_id"] for s in steps]
    if not any(map(step_dependencies, steps)) and (len(set(ids)) < len(ids) or done & set(ids)):
        # Nothing refers to an id, so the ids only label the steps: number them in order
        # instead of failing a plan whose meaning is not in doubt.
        first = max(done, default=0) + 1
        steps = [{**s, "step_id": first + i} for i, s in enumerate(steps)]
    for dumped in steps:
        sid = dumped["step_id"]
        if sid in seen or sid in done:
            raise FailClosed(
                ErrorCode.SCHEMA, f"step_id {particle(str(sid), '이', '가')} 중복됩니다"
            )
        missing = [d for d in step_dependencies(dumped) if d not in seen and d not in done]
        if missing:
            refs = ", ".join(f"step_{d}" for d in missing)
            raise FailClosed(
                ErrorCode.SCHEMA,
                f"step {particle(str(sid), '이', '가')} 앞에 없는 {particle(refs, '을', '를')} 참조합니다",
            )
        seen.add(sid)
    return steps


def _schema_detail(error: StructuredOutputError) -> str:
    cause = error.__cause__
    if isinstance(cause, ValidationError) and cause.errors():
        first = cause.errors()[0]
        where = ".".join(map(str, first["loc"])) or "plan"
        return f"{where}: {first['msg']}"
    return error.reason


async def compile_plan(
    model: BaseChatModel,
    messages: list[BaseMessage],
    allowed: Collection[str],
    done: Iterable[int] = (),
) -> list[dict[str, Any]]:
    """One structured LLM call → a checked plan, or `FailClosed` (never a guessed plan)."""
    try:
        parsed = await agenerate_structured(
            model, messages, plan_schema(tuple(allowed)), max_tokens=PLAN_MAX_TOKENS
        )
    except StructuredOutputError as e:
        if e.reason == "invalid JSON":
            raise FailClosed(ErrorCode.INVALID_JSON) from e
        if e.reason.startswith("reply cut off"):
            raise FailClosed(ErrorCode.INVALID_JSON, e.reason) from e
        raise FailClosed(ErrorCode.SCHEMA, _schema_detail(e)) from e
    return check_plan(parsed, allowed, done)
