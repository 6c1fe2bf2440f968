"""The plan schema and its fail-closed checks (one FailClosed code per row of the seed's table)."""

from __future__ import annotations

import pytest
from langchain_core.messages import HumanMessage

from dure.agents.pte.plan import (
    MAX_STEPS,
    FailClosed,
    Plan,
    check_plan,
    compile_plan,
    plan_schema,
    step_dependencies,
)
from dure.testing import ScriptedChatModel

ALLOWED = ("web_search", "summarize", "get_weather")


def parse(steps: list[dict]) -> Plan:
    return plan_schema(ALLOWED).model_validate({"plan": steps})


def test_seed_chain_plan_is_valid() -> None:
    steps = [
        {"step_id": 1, "tool": "web_search", "input": "LangGraph"},
        {"step_id": 2, "tool": "summarize", "input_from": "step_1"},
    ]
    assert check_plan(parse(steps), ALLOWED) == steps


def test_object_input_and_fan_in_are_valid() -> None:
    steps = [
        {"step_id": 1, "tool": "get_weather", "input": {"city": "서울"}},
        {"step_id": 2, "tool": "get_weather", "input": {"city": "부산"}},
        {"step_id": 3, "tool": "summarize", "input_from": ["step_1", "step_2"]},
    ]
    assert check_plan(parse(steps), ALLOWED)[2]["input_from"] == ["step_1", "step_2"]
    assert step_dependencies(steps[2]) == [1, 2]


@pytest.mark.parametrize(
    "step",
    [
        {"step_id": 1, "tool": "web_search"},  # neither input nor input_from
        {"step_id": 1, "tool": "web_search", "input": "a", "input_from": "step_0"},  # both
        {"step_id": 1, "tool": "summarize", "input_from": "1"},  # not step_<n>
        {"step_id": 1, "tool": "summarize", "input_from": []},
        {"step_id": 0, "tool": "web_search", "input": "a"},
        {"step_id": 1, "tool": "web_search", "input": "a", "reason": "extra field"},
        {"tool": "web_search", "input": "a"},
    ],
)
def test_malformed_steps_fail_schema_validation(step: dict) -> None:
    with pytest.raises(ValueError):
        parse([step])


def test_too_many_steps_fail_schema_validation() -> None:
    steps = [{"step_id": i, "tool": "web_search", "input": "a"} for i in range(1, MAX_STEPS + 2)]
    with pytest.raises(ValueError):
        parse(steps)


def test_tool_off_the_allow_list_is_its_own_row() -> None:
    plan = parse([{"step_id": 1, "tool": "python_repl", "input": "import os"}])
    with pytest.raises(FailClosed) as e:
        check_plan(plan, ALLOWED)
    assert e.value.code == "tool_not_allowed"
    assert str(e.value).startswith("Tool not allowed: python_repl")


@pytest.mark.parametrize(
    "steps",
    [
        [  # a reference forward (would be a cycle or an unknown output)
            {"step_id": 1, "tool": "summarize", "input_from": "step_2"},
            {"step_id": 2, "tool": "web_search", "input": "a"},
        ],
        [{"step_id": 1, "tool": "summarize", "input_from": "step_1"}],  # itself
        [  # a duplicate id that a reference makes ambiguous
            {"step_id": 1, "tool": "web_search", "input": "a"},
            {"step_id": 1, "tool": "web_search", "input": "b"},
            {"step_id": 2, "tool": "summarize", "input_from": "step_1"},
        ],
    ],
)
def test_bad_references_and_duplicate_ids_fail_as_schema(steps: list[dict]) -> None:
    with pytest.raises(FailClosed) as e:
        check_plan(parse(steps), ALLOWED)
    assert e.value.code == "schema"
    # Said in Korean with the particle the number takes ("1이", not "1가" or "1이(가)").
    assert any(f in str(e.value) for f in ("step 1이 앞에 없는 step_", "step_id 1이 중복됩니다"))


def test_replan_may_use_done_outputs_but_not_their_ids() -> None:
    ok = parse([{"step_id": 3, "tool": "summarize", "input_from": "step_1"}])
    assert check_plan(ok, ALLOWED, done=[1])
    reused = parse(
        [
            {"step_id": 1, "tool": "web_search", "input": "x"},
            {"step_id": 2, "tool": "summarize", "input_from": "step_1"},
        ]
    )
    with pytest.raises(FailClosed, match="중복"):
        check_plan(reused, ALLOWED, done=[1])


def test_ids_that_nothing_refers_to_are_numbered_again() -> None:
    """A 1.5B model's [1, 2, 2] with no references means one thing: three steps in order."""
    steps = [
        {"step_id": i, "tool": "get_weather", "input": c}
        for i, c in [(1, "서울"), (2, "부산"), (2, "대구")]
    ]
    assert [s["step_id"] for s in check_plan(parse(steps), ALLOWED)] == [1, 2, 3]
    again = check_plan(parse(steps[:1]), ALLOWED, done=[1, 2])  # a re-plan reusing a done id
    assert again == [{"step_id": 3, "tool": "get_weather", "input": "서울"}]


def test_json_schema_has_one_shape_per_kind_of_input() -> None:
    """Constrained decoding can write a literal input or earlier outputs, never both or neither."""
    defs = plan_schema(ALLOWED).model_json_schema()["$defs"]
    required = sorted(tuple(d["required"]) for d in defs.values())
    assert required == [("step_id", "tool", "input"), ("step_id", "tool", "input_from")]
    assert all(d["additionalProperties"] is False for d in defs.values())


def test_json_schema_constrains_tool_names() -> None:
    schema = plan_schema(ALLOWED).model_json_schema()
    step = next(iter(schema["$defs"].values()))
    assert step["properties"]["tool"]["enum"] == list(ALLOWED)
    assert step["additionalProperties"] is False


async def test_compile_plan_sends_the_schema_and_returns_steps() -> None:
    model = ScriptedChatModel(
        [{"plan": [{"step_id": 1, "tool": "web_search", "input": "서울 날씨"}]}]
    )
    plan = await compile_plan(model, [HumanMessage("서울 날씨")], ALLOWED)
    assert plan == [{"step_id": 1, "tool": "web_search", "input": "서울 날씨"}]
    fmt = model.calls[0].response_format
    assert fmt["type"] == "json_schema"
    assert "web_search" in str(fmt["json_schema"]["schema"])


@pytest.mark.parametrize(
    ("reply", "code", "message"),
    [
        ("계획은 다음과 같습니다: 검색", "invalid_json", "Invalid JSON"),
        ({"plan": [{"step_id": 1, "tool": "web_search"}]}, "schema", "Schema validation failed"),
        ({"steps": []}, "schema", "Schema validation failed"),
        ({"plan": [{"step_id": 1, "tool": "rm", "input": "x"}]}, "tool_not_allowed", "Tool not"),
    ],
)
async def test_compile_plan_fails_closed(reply, code: str, message: str) -> None:
    with pytest.raises(FailClosed) as e:
        await compile_plan(ScriptedChatModel([reply]), [HumanMessage("x")], ALLOWED)
    assert e.value.code == code
    assert str(e.value).startswith(message)
    # a plain string in the state: checkpoints hold no Dure type (LangGraph's strict msgpack)
    assert type(e.value.update()["error_code"]) is str and e.value.update()["error_code"] == code
