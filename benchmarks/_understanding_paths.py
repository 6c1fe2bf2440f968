"""How `benchmarks/understanding.py` reaches each decision: the `dure.korean` call an agent makes.

Each adapter takes a case, the models and whether the LLM tier may run, and returns an
`Outcome`: the score (1 right, 0 wrong; slots give their micro-F1 parts), how the decision was
made, and what came out. With the LLM tier off, a case the earlier tiers leave open scores 0
and counts as `abstained`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from dure.agents.contract.context import previous_turn_from
from dure.agents.pte.state import current_datetime
from dure.agents.tasks.filling import apply_parse
from dure.agents.tasks.intents import get_intent
from dure.agents.tasks.state import ConversationState
from dure.korean.followup import decide_followup
from dure.korean.intent import decide_intent
from dure.korean.route import decide_route
from dure.korean.scope import decide_scope
from dure.korean.slots.parser import parse_slots
from dure.korean.time import as_seoul
from dure.llm import ModelSet, StructuredOutputError


@dataclass
class Outcome:
    """One case's result."""

    score: float
    decided_by: str
    got: Any
    #: Slots only: (right values, values given that are not gold, gold values missed).
    counts: tuple[int, int, int] | None = None
    #: Scores of the parts of a decision (intent: `intent` and `needs_tool`).
    parts: dict[str, float] | None = None


def _messages(case: dict[str, Any]) -> list[BaseMessage]:
    history: list[BaseMessage] = [
        HumanMessage(m["content"]) if m["role"] == "user" else AIMessage(m["content"])
        for m in case.get("history") or []
    ]
    return [*history, HumanMessage(case["message"])]


def _failed(llm: bool) -> Outcome:
    # The LLM tier was reached: its reply was unreadable, or (LLM off) the stand-in refused.
    return Outcome(0, "llm" if llm else "abstained", "no decision")


async def scope(case: dict[str, Any], models: ModelSet, llm: bool) -> Outcome:
    try:
        d = await decide_scope(case["message"], models)
    except StructuredOutputError:
        return _failed(llm)
    return Outcome(float(d.in_scope == case["in_scope"]), d.decided_by, d.kind)


async def followup(case: dict[str, Any], models: ModelSet, llm: bool) -> Outcome:
    previous = previous_turn_from(_messages(case))
    try:
        d = await decide_followup(case["message"], previous, models)
    except StructuredOutputError:
        return _failed(llm)
    got = d.refers_to_previous
    return Outcome(float(got == case["refers_to_previous"]), d.decided_by, got)


async def intent(case: dict[str, Any], models: ModelSet, llm: bool) -> Outcome:
    try:
        d = await decide_intent(
            case["message"], case.get("history") or [], models, current_datetime()
        )
    except StructuredOutputError:
        return _failed(llm)
    parts = {
        "intent": float(d.intent == case["intent"]),
        "needs_tool": float(d.needs_tool == case["needs_tool"]),
    }
    return Outcome(
        parts["intent"] * parts["needs_tool"], d.decided_by, (d.intent, d.needs_tool), parts=parts
    )


async def route(case: dict[str, Any], models: ModelSet, llm: bool) -> Outcome:
    history = _messages(case)[:-1]
    d = await decide_route(case["message"], history, models, has_documents=True, collection="docs")
    if d.decided_by == "llm" and not llm:
        return _failed(llm)
    return Outcome(float(d.route == case["route"]), d.decided_by, d.route)


def _surface(slots: dict[str, Any]) -> dict[str, Any]:
    out = dict(slots)
    if isinstance(out.get("datetime"), str):
        out["datetime"] = out["datetime"][:16]
    return out


async def slots_lunch(case: dict[str, Any], models: ModelSet, llm: bool) -> Outcome:
    schema = get_intent("lunch_recommendation")
    now = as_seoul(datetime.fromisoformat(case["now"]))
    previous = dict(case.get("previous") or {})
    if "datetime" in previous:
        previous["datetime"] = as_seoul(datetime.fromisoformat(previous["datetime"])).isoformat()
    conv = ConversationState(intent=schema.name, slots=previous)
    apply_parse(conv, parse_slots(case["utterance"], schema, now), schema, now)
    names = {s.name for s in schema.slots}
    got = _surface({k: v for k, v in conv.slots.items() if k in names})
    gold = case["slots"]
    right = sum(1 for k, v in gold.items() if got.get(k) == v)
    given_wrong = sum(1 for k, v in got.items() if gold.get(k) != v)
    missed = len(gold) - right
    return Outcome(
        float(right == len(gold) and not given_wrong), "rule", got, (right, given_wrong, missed)
    )


DECISIONS: dict[str, tuple[str, Callable[[dict[str, Any], ModelSet, bool], Awaitable[Outcome]]]] = {
    "scope": ("scope.jsonl", scope),
    "followup": ("followup.jsonl", followup),
    "intent": ("intent.jsonl", intent),
    "route": ("route.jsonl", route),
    "slots": ("slots_lunch.jsonl", slots_lunch),
}
