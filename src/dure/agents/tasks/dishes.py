"""The dish table (package data) and what lunch may offer: rules remove, one bounded call ranks.

`allowed` is the rule filter: a dish survives only when it breaks none of the user's
exclusions (an allergen group, meat, seafood, spiciness, a kind of food or a dish named).
`rank` asks the `fast` model once to order the survivors against the slots — its answer is an
enum of their names, so it can only reorder what the rules let through; with no model, or an
unreadable reply, the rule order stands and the result says so.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from functools import lru_cache
from importlib.resources import files
from typing import Any, Literal

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel, Field, create_model

from dure.agents.tasks import prompts
from dure.llm import agenerate_structured
from dure.usage import BudgetExceeded

log = logging.getLogger(__name__)

_MEAT = frozenset({"돼지고기", "쇠고기", "닭고기"})
_FISH = frozenset({"생선", "고등어"})
_SEAFOOD = _FISH | {"새우", "게", "오징어", "조개류"}
#: Exclusion words (`dure.korean.slots.diet`) that stand for several allergen labels: a nut
#: allergy is served no peanuts, 글루텐 is 밀, a diet rules out what it does (채식: meat, fish
#: and other seafood; 비건 also milk and eggs; 할랄: pork — the table lists no alcohol).
GROUPS: dict[str, frozenset[str]] = {
    "고기": _MEAT,
    "해산물": _SEAFOOD,
    "생선": _FISH,
    "갑각류": frozenset({"새우", "게"}),
    "견과류": frozenset({"땅콩", "호두", "잣"}),
    "글루텐": frozenset({"밀"}),
    "채식": _MEAT | _SEAFOOD,
    "비건": _MEAT | _SEAFOOD | {"우유", "난류"},
    "할랄": frozenset({"돼지고기"}),
}
#: Exclusions that rule out the table's 고기 kind as a whole.
MEATLESS = frozenset({"고기", "채식", "비건"})
SPICY = "매운 음식"
#: How many candidates the ranking call sees (an enum the local model handles well).
MAX_CANDIDATES = 12
MAX_PICKS = 3


class Dish(BaseModel):
    """One row of the dish table."""

    name: str
    category: str
    price: int
    allergens: list[str]
    spicy: int = Field(ge=0, le=3)

    def breaks(self, exclusion: str) -> bool:
        """True when this dish is something the user excluded: spicy, of the kind, holding
        an allergen of the group or the allergen itself, else a dish named ("짜장" → 짜장면)."""
        if exclusion == SPICY:
            return self.spicy > 0
        if exclusion == self.category or (exclusion in MEATLESS and self.category == "고기"):
            return True
        if exclusion in GROUPS:
            return bool(GROUPS[exclusion] & set(self.allergens))
        if exclusion in allergens():
            return exclusion in self.allergens
        return exclusion in self.name


@lru_cache(maxsize=1)
def dishes() -> list[Dish]:
    """The dish table, in its own (rule) order."""
    data = json.loads(files("dure").joinpath("data/dishes.json").read_text(encoding="utf-8"))
    return [Dish.model_validate(d) for d in data["dishes"]]


@lru_cache(maxsize=1)
def allergens() -> frozenset[str]:
    """Every allergen label the table or a group names (an exclusion that is one is never
    looked for in dish names)."""
    return frozenset(a for d in dishes() for a in d.allergens).union(*GROUPS.values())


def dish(name: str) -> Dish | None:
    """The table's row for a dish name."""
    return next((d for d in dishes() if d.name == name), None)


def allowed(candidates: Iterable[Dish], exclusions: Iterable[str]) -> list[Dish]:
    """The dishes that break none of the exclusions (rules, no LLM)."""
    excluded = list(exclusions)
    return [d for d in candidates if not any(d.breaks(e) for e in excluded)]


def _named(d: Dish, asked: list[str]) -> bool:
    return any(a in d.name for a in asked)


def wanted(candidates: list[Dish], asked: list[str]) -> list[Dish]:
    """The candidates the user asked for — those named ("냉면"), else those of the kind asked
    ("한식") — or all of them when none is: a wish is a rule, not the model's to overrule."""
    named = [d for d in candidates if _named(d, asked)]
    return named or [d for d in candidates if d.category in asked] or candidates


def rule_order(
    candidates: list[Dish], *, asked: list[str], budget: int | None, nearby: set[str] | None
) -> list[Dish]:
    """Dishes named as asked first ("냉면"), then of the kind asked for ("한식"), then
    those within budget, then those served nearby (when the provider knows), the table's order
    last; kinds of food take turns, so the first three are not all noodles."""

    def key(d: Dish) -> tuple[bool, bool, bool, bool]:
        named = _named(d, asked)  # "냉면" before the rest of 한식
        return (
            bool(asked) and not named,
            bool(asked) and not named and d.category not in asked,
            budget is not None and d.price > budget,
            nearby is not None and d.name not in nearby,
        )

    ordered = sorted(candidates, key=key)  # stable: the table's order breaks ties
    turns: dict[tuple[bool, bool, bool, bool], dict[str, list[Dish]]] = {}
    for d in ordered:
        turns.setdefault(key(d), {}).setdefault(d.category, []).append(d)
    result: list[Dish] = []
    for by_kind in turns.values():
        while any(by_kind.values()):
            result += [kind.pop(0) for kind in by_kind.values() if kind]
    return result


def _choice(names: list[str]) -> type[BaseModel]:
    names_type: Any = Literal[tuple(names)]
    return create_model(
        "DishRanking",
        dishes=(list[names_type], Field(min_length=1, max_length=MAX_PICKS)),
    )


Ranked = Literal["llm", "rules", "single"]


async def rank(
    candidates: list[Dish], conditions: str, model: BaseChatModel | None
) -> tuple[list[Dish], Ranked]:
    """Up to three dishes, best first, and who ordered them: the model, the rules (no model,
    or an unreadable reply), or nobody (one candidate: no call)."""
    pool = candidates[:MAX_CANDIDATES]
    if len(pool) <= 1:
        return pool, "single"
    if model is None:
        return pool[:MAX_PICKS], "rules"
    listed = "\n".join(
        f"- {d.name} ({d.category}, 약 {d.price:,}원, 매운 정도 {d.spicy})" for d in pool
    )
    messages = [
        SystemMessage(prompts.RANK_SYSTEM),
        HumanMessage(prompts.RANK_USER.format(conditions=conditions, candidates=listed)),
    ]
    try:
        reply = await agenerate_structured(model, messages, _choice([d.name for d in pool]))
    except BudgetExceeded:
        raise
    except Exception as e:  # no model, or an unreadable reply: the rule order stands
        log.info("dish ranking unavailable (%s); keeping the rule order", e)
        return pool[:MAX_PICKS], "rules"
    by_name = {d.name: d for d in pool}
    picked = [by_name[n] for n in dict.fromkeys(reply.dishes)]  # type: ignore[attr-defined]
    rest = [d for d in pool if d not in picked]
    return (picked + rest)[:MAX_PICKS], "llm"
