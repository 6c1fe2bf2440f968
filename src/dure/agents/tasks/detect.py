"""Intent detection: rules first, then the `fast` model only when the rules cannot tell.

The rules, in order: task keywords ("점심", "회의실"); a message that states slots of the task
in progress continues it ("4명으로 바꿔줘"); otherwise the slots themselves — "을지로에서 2명"
names a place, which only lunch has. None of these calls an LLM.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from dure.agents.tasks import prompts
from dure.agents.tasks.intents import GENERAL, INTENTS, get_intent, task_intents
from dure.korean.slots.parser import parse_slots
from dure.llm import StructuredOutputError, agenerate_structured

log = logging.getLogger(__name__)

How = Literal["rules", "continue", "slots", "llm", "fallback"]


class IntentChoice(BaseModel):
    """The model's classification."""

    intent: str = Field(max_length=40)


@dataclass
class Detection:
    """Which intent, and how it was decided."""

    intent: str
    how: How


def _winner(scores: dict[str, int]) -> str | None:
    best = max(scores.values(), default=0)
    winners = [name for name, score in scores.items() if score == best]
    return winners[0] if best > 0 and len(winners) == 1 else None


def rule_intent(text: str) -> str | None:
    """The task intent whose keywords the text uses most, if exactly one wins."""
    return _winner({i.name: sum(word in text for word in i.keywords) for i in task_intents()})


def slot_intent(text: str, now: datetime) -> str | None:
    """The task intent for which the text states the most slots, if exactly one wins."""
    return _winner(
        {i.name: len(parse_slots(text, i, now).slots) for i in task_intents() if i.by_slots}
    )


async def detect_intent(
    text: str, previous: str | None, now: datetime, model: BaseChatModel
) -> Detection:
    """Rules, then continuing the previous task, then one `fast`-model call."""
    if name := rule_intent(text):
        return Detection(name, "rules")
    if previous and previous != GENERAL.name and parse_slots(text, get_intent(previous), now).slots:
        return Detection(previous, "continue")
    if name := slot_intent(text, now):
        return Detection(name, "slots")
    catalogue = "\n".join(f"- {i.name}: {i.title} — {i.description}" for i in task_intents())
    messages = [
        SystemMessage(prompts.INTENT_SYSTEM.format(catalogue=catalogue)),
        HumanMessage(text),
    ]
    try:
        choice = await agenerate_structured(model, messages, IntentChoice)
    except StructuredOutputError as e:
        log.info("intent classification failed (%s); treating as general", e.reason)
        return Detection(GENERAL.name, "fallback")
    if choice.intent not in INTENTS:
        return Detection(GENERAL.name, "fallback")
    return Detection(choice.intent, "llm")
