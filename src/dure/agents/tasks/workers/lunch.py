"""The lunch workers over the fictional catalogue: what to eat, then where.

`menu_recommendation_agent` picks up to three kinds of food that fit (the one asked for, or
those whose best fitting place in the area scores highest, with a bonus for quick places when
eating alone and for group tables from six people). `restaurant_search_agent` finds places open
at that time with room for the party, relaxing the kind of food and then the budget when nothing
fits — and says so. No LLM call: the final answer phrases the result.
"""

from __future__ import annotations

from datetime import datetime

from dure.agents.tasks.catalogue import Restaurant, restaurants
from dure.agents.tasks.schema import display_value
from dure.agents.tasks.workers.base import WorkerInput, WorkerResult, register_worker
from dure.sources import Source

MAX_KINDS = 3
MAX_PLACES = 3


def _fits_budget(r: Restaurant, budget: dict[str, int] | None) -> bool:
    low, high = (budget or {}).get("min", 0), (budget or {}).get("max")
    return (high is None or r.lowest_price <= high) and r.highest_price >= low


def _score(r: Restaurant, party: int) -> float:
    bonus = 0.3 if (party == 1 and "혼밥" in r.tags) or (party >= 6 and "단체석" in r.tags) else 0.0
    return r.rating + bonus - r.walk_minutes * 0.02


def _candidates(inp: WorkerInput, *, cuisines: list[str] | None, budget: bool) -> list[Restaurant]:
    conv = inp.conversation
    when = datetime.fromisoformat(conv.slots["datetime"])
    party = int(conv.slots["party_size"])
    return [
        r
        for r in restaurants()
        if r.area == conv.canonical("location")
        and r.is_open(when)
        and r.max_party >= party
        and (not cuisines or r.cuisine in cuisines)
        and (not budget or _fits_budget(r, conv.slots.get("budget_per_person")))
    ]


@register_worker("menu_recommendation_agent", "점심 메뉴 추천")
async def recommend_menu(inp: WorkerInput) -> WorkerResult:
    """Kinds of food (and dishes) worth eating for this lunch."""
    conv = inp.conversation
    party = int(conv.slots["party_size"])
    asked = conv.canonical("cuisine")
    fitting = _candidates(inp, cuisines=[asked] if asked else None, budget=True)
    ranked = sorted(fitting, key=lambda r: -_score(r, party))
    kinds = [asked] if asked else list(dict.fromkeys(r.cuisine for r in ranked))[:MAX_KINDS]
    dishes = {k: [m.name for r in ranked if r.cuisine == k for m in r.menus][:3] for k in kinds}
    if not any(dishes.values()):
        return WorkerResult(
            summary="조건에 꼭 맞는 메뉴를 고르지 못해 식당 검색에서 조건을 넓혀 봅니다.",
            data={"cuisines": kinds, "dishes": dishes},
        )
    listed = ", ".join(f"{k}({'·'.join(d)})" for k, d in dishes.items() if d)
    return WorkerResult(summary=f"추천 메뉴: {listed}", data={"cuisines": kinds, "dishes": dishes})


def _source(r: Restaurant) -> Source:
    return Source(
        doc=r.name,
        kind="tool",
        article_title=f"{r.area} · {r.cuisine}",
        text=(
            f"{r.station} 도보 {r.walk_minutes}분 · 1인 {r.lowest_price:,}~{r.highest_price:,}원"
            f" · 평점 {r.rating} · 최대 {r.max_party}명"
        ),
    )


@register_worker("restaurant_search_agent", "식당 검색")
async def search_restaurants(inp: WorkerInput) -> WorkerResult:
    """Restaurants open at that time with room for the party, best first."""
    menu = inp.results.get("menu_recommendation_agent")
    kinds = (menu.data.get("cuisines") if menu else None) or None
    relaxed: list[str] = []
    found = _candidates(inp, cuisines=kinds, budget=True)
    if not found and kinds:
        relaxed.append("음식 종류")
        found = _candidates(inp, cuisines=None, budget=True)
    if not found and inp.conversation.slots.get("budget_per_person"):
        relaxed.append("예산")
        found = _candidates(inp, cuisines=None, budget=False)
    conv = inp.conversation
    when = display_value("datetime", conv.slots["datetime"])
    if not found:
        return WorkerResult(
            ok=False,
            summary=f"{conv.slots['location']}에서 {when}에 {conv.slots['party_size']}명이 갈 수 있는 식당을 찾지 못했어요.",
        )
    party = int(conv.slots["party_size"])
    top = sorted(found, key=lambda r: -_score(r, party))[:MAX_PLACES]
    lines = [
        f"- {r.name} ({r.cuisine}, {r.station} 도보 {r.walk_minutes}분, 1인 {r.lowest_price:,}원부터, 평점 {r.rating}): "
        + ", ".join(f"{m.name} {m.price:,}원" for m in r.menus)
        for r in top
    ]
    note = f" ({'·'.join(relaxed)} 조건을 넓혀 찾았어요)" if relaxed else ""
    return WorkerResult(
        summary=f"추천 식당{note}:\n" + "\n".join(lines),
        data={"restaurants": [r.model_dump(by_alias=True) for r in top], "relaxed": relaxed},
        sources=[_source(r) for r in top],
    )
