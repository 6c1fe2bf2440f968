"""Structured output that fails closed.

The model is asked for JSON matching a pydantic schema (JSON-schema-constrained decoding where
the provider supports it), the reply is validated, and anything else raises one typed error,
`StructuredOutputError`, that graphs route to their error path. There is no silent default.
"""

from __future__ import annotations

import json
import re
from typing import Any, TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.runnables import RunnableConfig
from langgraph.constants import TAG_NOSTREAM
from pydantic import BaseModel, ValidationError

from dure.llm.budget import token_budget

T = TypeVar("T", bound=BaseModel)

_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.DOTALL)

REPAIR_PROMPT = (
    "직전 답변은 요구한 JSON 형식이 아니었습니다 ({error}). "
    "설명 없이 스키마에 맞는 JSON 객체 하나만 다시 출력하세요."
)


class StructuredOutputError(ValueError):
    """The model's reply was not valid JSON for the schema."""

    def __init__(self, reason: str, raw: str) -> None:
        super().__init__(f"{reason}: {raw[:200]!r}")
        self.reason = reason
        self.raw = raw


def response_format(model: BaseChatModel, schema: dict[str, Any], name: str) -> dict[str, Any]:
    """The `response_format` request parameter this model's provider understands."""
    mode = getattr(model, "json_mode", "json_schema")
    if mode == "json_object":
        return {"type": "json_object", "schema": schema}
    return {"type": "json_schema", "json_schema": {"name": name, "schema": schema}}


def parse_json_object(text: str) -> Any:
    """JSON from a reply, tolerating a Markdown code fence around it."""
    m = _FENCE.match(text)
    return json.loads(m.group(1) if m else text)


def validate(schema: type[T], text: str) -> T:
    """Parse and validate one reply, or raise `StructuredOutputError`."""
    try:
        data = parse_json_object(text)
    except json.JSONDecodeError as e:
        raise StructuredOutputError("invalid JSON", text) from e
    try:
        return schema.model_validate(data)
    except ValidationError as e:
        raise StructuredOutputError("schema mismatch", text) from e


def _bound(model: BaseChatModel, schema: type[BaseModel], max_tokens: int | None) -> Any:
    """The model bound to the schema and to `max_tokens`, by default the schema's own budget
    (`UnboundedSchemaError` when it has none and none is given). Tagged `nostream`: a decision's
    JSON is not part of the conversation, so LangGraph's messages stream (what chat UIs show)
    leaves it out."""
    json_schema = schema.model_json_schema()
    fmt = response_format(model, json_schema, schema.__name__)
    bound = model.bind(response_format=fmt, max_tokens=_limit(schema, max_tokens))
    return bound.with_config(tags=[TAG_NOSTREAM])


def _limit(schema: type[BaseModel], max_tokens: int | None) -> int:
    return max_tokens or token_budget(schema.model_json_schema())


def _checked(schema: type[T], reply: Any, limit: int) -> T:
    """`validate`, saying so plainly when the reply stopped at the token limit."""
    text = _text(reply)
    used = (getattr(reply, "usage_metadata", None) or {}).get("output_tokens", 0)
    try:
        return validate(schema, text)
    except StructuredOutputError as e:
        if used >= limit:
            raise StructuredOutputError(f"reply cut off at max_tokens {limit}", text) from e
        raise


def generate_structured(
    model: BaseChatModel,
    messages: list[BaseMessage],
    schema: type[T],
    *,
    repair: bool = False,
    config: RunnableConfig | None = None,
    max_tokens: int | None = None,
) -> T:
    """One structured call (plus, if `repair`, one retry that shows the model its mistake).

    `max_tokens` bounds the reply (default: the schema's own budget, `dure.llm.budget`); a reply
    cut off by it is not valid JSON and fails closed, saying it was cut off.
    """
    limit = _limit(schema, max_tokens)
    reply = _bound(model, schema, limit).invoke(messages, config=config)
    try:
        return _checked(schema, reply, limit)
    except StructuredOutputError as first:
        if not repair:
            raise
        retry = [*messages, reply, HumanMessage(REPAIR_PROMPT.format(error=first.reason))]
        return _checked(schema, _bound(model, schema, limit).invoke(retry, config=config), limit)


async def agenerate_structured(
    model: BaseChatModel,
    messages: list[BaseMessage],
    schema: type[T],
    *,
    repair: bool = False,
    config: RunnableConfig | None = None,
    max_tokens: int | None = None,
) -> T:
    """Async `generate_structured`."""
    limit = _limit(schema, max_tokens)
    reply = await _bound(model, schema, limit).ainvoke(messages, config=config)
    try:
        return _checked(schema, reply, limit)
    except StructuredOutputError as first:
        if not repair:
            raise
        retry = [*messages, reply, HumanMessage(REPAIR_PROMPT.format(error=first.reason))]
        bound = _bound(model, schema, limit)
        return _checked(schema, await bound.ainvoke(retry, config=config), limit)


def _text(reply: BaseMessage | Any) -> str:
    content = reply.content if isinstance(reply, AIMessage | BaseMessage) else reply
    if isinstance(content, list):  # content blocks
        return "".join(b.get("text", "") if isinstance(b, dict) else str(b) for b in content)
    return str(content)
