"""Optional LLM slot extraction (off by default: `DURE_TASKS__LLM_EXTRACTION=true`).

It runs after the rules and may fill only slots the rules left empty. The model returns the
words the user used for each empty slot; those words go through the same rule parser, so the
model never writes a slot value directly.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import Field, create_model

from dure.agents.tasks import prompts
from dure.agents.tasks.filling import apply_parse
from dure.agents.tasks.schema import IntentSchema, is_filled
from dure.agents.tasks.state import ConversationState
from dure.korean.slots.parser import ParseResult, parse_slots
from dure.llm import agenerate_structured


def empty_slots(conv: ConversationState, schema: IntentSchema) -> list[str]:
    """Slots of the intent with no value yet."""
    return [s.name for s in schema.slots if not is_filled(conv.slots.get(s.name))]


#: The longest phrase the model may quote for one slot.
PHRASE_CHARS = 80


async def llm_fill(
    text: str,
    conv: ConversationState,
    schema: IntentSchema,
    now: datetime,
    model: BaseChatModel,
) -> list[str]:
    """Fill empty slots from the model's reading of `text`; returns the slots it filled."""
    specs = {name: spec for name in empty_slots(conv, schema) if (spec := schema.spec(name))}
    empty = list(specs)
    if not empty:
        return []
    fields: dict[str, Any] = {
        name: (str | None, Field(None, description=spec.label, max_length=PHRASE_CHARS))
        for name, spec in specs.items()
    }
    phrases = await agenerate_structured(
        model,
        [
            SystemMessage(prompts.EXTRACT_SYSTEM.format(fields=", ".join(empty))),
            HumanMessage(text),
        ],
        create_model("ExtractedPhrases", **fields),
    )
    filled: list[str] = []
    for name in empty:
        phrase = getattr(phrases, name)
        if not phrase:
            continue
        parsed = parse_slots(str(phrase), schema, now, expect=[name])
        is_datetime = specs[name].type == "datetime"
        only = ParseResult(
            slots={k: v for k, v in parsed.slots.items() if k == name},
            day=parsed.day if is_datetime else None,
            at=parsed.at if is_datetime else None,
        )
        filled += apply_parse(conv, only, schema, now)
    return filled
