"""How `benchmarks/understanding.py` reaches each decision: the code path an agent runs.

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

from dure.agents.assistant import nodes as assistant_nodes
from dure.agents.assistant.deps import Deps as AssistantDeps
from dure.agents.assistant.routing import rule_route
from dure.agents.contract import nodes as contract_nodes
from dure.agents.contract.context import previous_turn_from
from dure.agents.contract.scope import ScopeValidator, references_previous_turn
from dure.agents.pte import nodes as pte_nodes
from dure.agents.pte.deps import Deps as PteDeps
from dure.agents.pte.intent import is_chitchat
from dure.agents.pte.state import current_datetime
from dure.agents.tasks.filling import apply_parse
from dure.agents.tasks.intents import get_intent
from dure.agents.tasks.slots.parser import parse_slots
from dure.agents.tasks.slots.when import as_seoul
from dure.agents.tasks.state import ConversationState
from dure.llm import ModelSet, StructuredOutputError
from dure.tools.base import ToolRegistry


@dataclass
class Outcome:
    """One case's result."""

    score: float
    decided_by: str
    got: Any
    #: Slots only: (right values, values given that are not gold, gold values missed).
    counts: tuple[int, int, int] | None = None


def _messages(case: dict[str, Any]) -> list[BaseMessage]:
    history: list[BaseMessage] = [
        HumanMessage(m["content"]) if m["role"] == "user" else AIMessage(m["content"])
        for m in case.get("history") or []
    ]
    return [*history, HumanMessage(case["message"])]


async def scope(case: dict[str, Any], models: ModelSet, llm: bool) -> Outcome:
    validator = ScopeValidator(lambda: models("fast"))
    ruled = validator.by_rules(case["message"], has_history=False)
    if ruled is None and not llm:
        return Outcome(0, "abstained", None)
    try:
        result = ruled or await validator.validate(case["message"], has_history=False)
    except StructuredOutputError:
        return Outcome(0, "llm", "invalid JSON")
    return Outcome(float(result.in_scope == case["in_scope"]), result.decided_by, result.kind)


async def followup(case: dict[str, Any], models: ModelSet, llm: bool) -> Outcome:
    messages = _messages(case)
    previous = previous_turn_from(messages)
    gold = case["refers_to_previous"]
    if not previous:
        return Outcome(float(not gold), "rule", False)
    message = case["message"]
    ruled = ScopeValidator(lambda: models("fast")).by_rules(message, has_history=True)
    if references_previous_turn(message):
        return Outcome(float(gold), "rule", True)
    if ruled is not None and (ruled.self_contained or ruled.kind == "smalltalk"):
        return Outcome(float(not gold), "rule", False)
    if not llm:
        return Outcome(0, "abstained", None)
    deps = contract_nodes.Deps.__new__(contract_nodes.Deps)  # only `models` is read
    deps.models = models
    state = {"user_message": message, "messages": messages, "previous_turn": previous}
    update = await contract_nodes.check_previous_context(state, deps=deps)  # type: ignore[arg-type]
    got = bool(update.get("need_previous_context"))
    return Outcome(float(got == gold), "llm", got)


async def intent(case: dict[str, Any], models: ModelSet, llm: bool) -> Outcome:
    message = case["message"]
    if is_chitchat(message):
        got = ("chitchat", False)
        by = "rule"
    elif not llm:
        return Outcome(0, "abstained", None)
    else:
        deps = PteDeps(models.settings, models, ToolRegistry([]))
        state = {
            "input": message,
            "messages": case.get("history") or [],
            "current_datetime": current_datetime(),
        }
        update = await pte_nodes.intent_classifier(state, deps=deps)  # type: ignore[arg-type]
        got = (update.get("intent"), update.get("needs_tool"))
        by = "llm"
    right = (got[0] == case["intent"]) + (got[1] == case["needs_tool"])
    return Outcome(right / 2, by, got)


async def route(case: dict[str, Any], models: ModelSet, llm: bool) -> Outcome:
    question = case["message"]
    ruled = rule_route(question, True)
    if ruled is not None:
        return Outcome(float(ruled.route == case["route"]), "rule", ruled.route)
    if not llm:
        return Outcome(0, "abstained", None)
    deps = AssistantDeps(models.settings, models, ToolRegistry([]), {"collection": "docs"})
    decision = await assistant_nodes._llm_route(deps, _messages(case), question)
    return Outcome(float(decision.route == case["route"]), "llm", decision.route)


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
