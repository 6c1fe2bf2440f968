"""Structured output fails closed, accepts fenced JSON, and repairs once only when asked."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, Literal

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from pydantic import BaseModel, Field

from dure.llm import StructuredOutputError, agenerate_structured, generate_structured
from dure.llm.budget import UnboundedSchemaError, token_budget
from dure.llm.structured import REPAIR_PROMPT, response_format
from dure.testing import ScriptedChatModel


class Route(BaseModel):
    route: Literal["rag", "agent"]
    reason: str = Field(max_length=80)


QUESTION = [HumanMessage("계약 해지 조건이 뭐야?")]
GOOD = {"route": "rag", "reason": "계약서 질문"}


@pytest.fixture(params=["sync", "async"])
def structured(request: pytest.FixtureRequest) -> Any:
    """`generate_structured` or `agenerate_structured`, called the same way."""

    async def call(model: ScriptedChatModel, repair: bool = False) -> Route:
        if request.param == "sync":
            return generate_structured(model, QUESTION, Route, repair=repair)
        return await agenerate_structured(model, QUESTION, Route, repair=repair)

    return call


async def test_valid_reply_is_validated(structured: Any) -> None:
    model = ScriptedChatModel([GOOD])
    result = await structured(model)
    assert result == Route(route="rag", reason="계약서 질문")
    (call,) = model.calls
    assert call.response_format["type"] == "json_schema"
    assert call.response_format["json_schema"]["name"] == "Route"
    assert call.response_format["json_schema"]["schema"] == Route.model_json_schema()


async def test_invalid_json_fails_closed(structured: Any) -> None:
    model = ScriptedChatModel(["rag 경로가 좋겠습니다", GOOD])
    with pytest.raises(StructuredOutputError) as info:
        await structured(model)
    assert info.value.reason == "invalid JSON"
    assert info.value.raw == "rag 경로가 좋겠습니다"
    assert len(model.calls) == 1 and model.remaining == 1  # no retry without repair=True


async def test_schema_mismatch_fails_closed(structured: Any) -> None:
    model = ScriptedChatModel([{"route": "web", "reason": "검색"}])
    with pytest.raises(StructuredOutputError) as info:
        await structured(model)
    assert info.value.reason == "schema mismatch"


async def test_missing_field_is_a_mismatch_not_a_default(structured: Any) -> None:
    model = ScriptedChatModel([{"route": "agent"}])
    with pytest.raises(StructuredOutputError, match="schema mismatch"):
        await structured(model)


@pytest.mark.parametrize(
    "text",
    [
        '```json\n{"route": "agent", "reason": "도구"}\n```',
        '```\n{"route": "agent", "reason": "도구"}\n```',
        '  ```json {"route": "agent", "reason": "도구"} ```  ',
    ],
)
async def test_fenced_json_is_accepted(structured: Any, text: str) -> None:
    result = await structured(ScriptedChatModel([text]))
    assert result.route == "agent"


async def test_repair_is_one_retry_that_shows_the_mistake(structured: Any) -> None:
    model = ScriptedChatModel(["JSON이 아닙니다", GOOD])
    result = await structured(model, repair=True)
    assert result.route == "rag"
    first, second = model.calls
    assert second.messages[: len(QUESTION)] == QUESTION
    assert isinstance(second.messages[-2], AIMessage)
    assert second.messages[-2].content == "JSON이 아닙니다"
    assert second.messages[-1].content == REPAIR_PROMPT.format(error="invalid JSON")
    assert second.response_format == first.response_format


async def test_repair_happens_only_once(structured: Any) -> None:
    model = ScriptedChatModel(["틀림", "또 틀림", GOOD])
    with pytest.raises(StructuredOutputError, match="invalid JSON"):
        await structured(model, repair=True)
    assert len(model.calls) == 2 and model.remaining == 1


async def test_repair_not_used_when_first_reply_is_good(structured: Any) -> None:
    model = ScriptedChatModel([GOOD, GOOD])
    await structured(model, repair=True)
    assert len(model.calls) == 1


def test_response_format_follows_the_models_json_mode() -> None:
    schema = Route.model_json_schema()
    assert response_format(SimpleNamespace(json_mode="json_object"), schema, "Route") == {  # type: ignore[arg-type]
        "type": "json_object",
        "schema": schema,
    }
    assert response_format(SimpleNamespace(), schema, "Route")["type"] == "json_schema"  # type: ignore[arg-type]


class Unbounded(BaseModel):
    route: Literal["rag", "agent"]
    reasoning: str  # no maxLength: a model could ramble until the context ends


async def test_an_unbounded_schema_is_refused_before_any_call() -> None:
    model = ScriptedChatModel([{"route": "rag", "reasoning": "계약서 질문"}])
    with pytest.raises(UnboundedSchemaError, match="reasoning"):
        await agenerate_structured(model, QUESTION, Unbounded)
    assert model.calls == []
    await agenerate_structured(model, QUESTION, Unbounded, max_tokens=64)  # bounded by the call
    assert model.calls[0].max_tokens == 64


async def test_every_call_is_bounded_by_its_schema() -> None:
    model = ScriptedChatModel([GOOD])
    await agenerate_structured(model, QUESTION, Route)
    assert model.calls[0].max_tokens == token_budget(Route.model_json_schema())
    assert 80 < model.calls[0].max_tokens < 140  # "agent" + 80 characters + the JSON around


async def test_a_reply_cut_off_at_the_limit_says_so() -> None:
    model = ScriptedChatModel(['{"route": "rag", "reason": "계약서의 해지 조항과 위약금 조항을'])
    with pytest.raises(StructuredOutputError, match="cut off at max_tokens 8"):
        await agenerate_structured(model, QUESTION, Route, max_tokens=8)
