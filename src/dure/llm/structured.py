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
from pydantic import BaseModel, ValidationError

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
    fmt = response_format(model, schema.model_json_schema(), schema.__name__)
    limit = {"max_tokens": max_tokens} if max_tokens else {}
    return model.bind(response_format=fmt, **limit)


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

    `max_tokens` bounds the reply; a reply cut off by it is not valid JSON and fails closed.
    """
    reply = _bound(model, schema, max_tokens).invoke(messages, config=config)
    try:
        return validate(schema, _text(reply))
    except StructuredOutputError as first:
        if not repair:
            raise
        retry = [*messages, reply, HumanMessage(REPAIR_PROMPT.format(error=first.reason))]
        return validate(
            schema, _text(_bound(model, schema, max_tokens).invoke(retry, config=config))
        )


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
    reply = await _bound(model, schema, max_tokens).ainvoke(messages, config=config)
    try:
        return validate(schema, _text(reply))
    except StructuredOutputError as first:
        if not repair:
            raise
        retry = [*messages, reply, HumanMessage(REPAIR_PROMPT.format(error=first.reason))]
        bound = _bound(model, schema, max_tokens)
        return validate(schema, _text(await bound.ainvoke(retry, config=config)))


def _text(reply: BaseMessage | Any) -> str:
    content = reply.content if isinstance(reply, AIMessage | BaseMessage) else reply
    if isinstance(content, list):  # content blocks
        return "".join(b.get("text", "") if isinstance(b, dict) else str(b) for b in content)
    return str(content)
