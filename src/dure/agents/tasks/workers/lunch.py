"""The lunch workers, as seed 003 has them: recommend dishes, then search restaurants for them.

`menu_recommendation_agent` takes the dish table, removes by rule every dish the user excluded
("매운 거 빼고", "견과류 알레르기", "고기 말고"), orders the rest by rule (the kind asked for,
the budget, what is served nearby) and lets one bounded `fast`-model call rank them against the
slots (an enum of the survivors: it cannot bring back an excluded dish). No model → the rule
order, said. `restaurant_search_agent` asks the place-search provider (`places.py`) for the
chosen dishes near the place; a provider that fails leaves the catalogue's answer and a notice.
"""

from __future__ import annotations

from dataclasses import asdict
from datetime import datetime

from dure.agents.tasks import prompts
from dure.agents.tasks.dishes import (
    Dish,
    allowed,
    dish,
    dishes,
    rank,
    rule_order,
    wanted,
)
from dure.agents.tasks.kakao import KakaoLocal, uses_kakao
from dure.agents.tasks.places import PlaceQuery, PlaceSearch, SampleCatalogue, search_places
from dure.agents.tasks.question import known_values
from dure.agents.tasks.schema import display_value
from dure.agents.tasks.workers.base import WorkerInput, WorkerResult, register_worker
from dure.korean.time import as_seoul
from dure.settings import Settings
from dure.sources import Source


def provider_for(settings: Settings) -> PlaceSearch:
    """The configured provider (`tasks.place_search`; auto: Kakao when a key is set)."""
    t = settings.tasks
    if uses_kakao(settings):
        return KakaoLocal(t.kakao_rest_key, t.kakao_base_url, t.kakao_timeout)
    return SampleCatalogue()


def _query(inp: WorkerInput, chosen: list[Dish]) -> PlaceQuery:
    conv = inp.conversation
    return PlaceQuery(
        place=str(conv.slots["location"]),
        area=str(conv.canonical("location")),
        dishes=chosen,
        when=as_seoul(datetime.fromisoformat(conv.slots["datetime"])),
        party=int(conv.slots["party_size"]),
        budget=conv.slots.get("budget_per_person"),
        requirements=list(conv.slots.get("requirements") or []),
        exclusions=list(conv.slots.get("exclusions") or []),
    )


@register_worker("menu_recommendation_agent", "점심 메뉴 추천")
async def recommend_menu(inp: WorkerInput) -> WorkerResult:
    """Up to three dishes that respect every exclusion, best first."""
    conv = inp.conversation
    exclusions = list(conv.slots.get("exclusions") or [])
    avoided = f" (제외: {', '.join(exclusions)})" if exclusions else ""
    survivors = allowed(dishes(), exclusions)
    if not survivors:
        return WorkerResult(
            ok=False, summary=f"말씀하신 조건을 모두 피하는 메뉴가 메뉴 표에 없어요{avoided}."
        )
    asked = [str(w) for w in (conv.slots.get("cuisine"), conv.canonical("cuisine")) if w]
    provider = provider_for(inp.settings)
    nearby = provider.nearby(_query(inp, [])) if isinstance(provider, SampleCatalogue) else None
    ordered = rule_order(
        survivors,
        asked=asked,
        budget=(conv.slots.get("budget_per_person") or {}).get("max"),
        nearby=nearby,
    )
    ordered = wanted(ordered, asked)  # the model ranks among what was asked for
    schema = conv.schema()
    conditions = ", ".join(p for _, p in known_values(conv, schema, inp.now)) if schema else ""
    model = inp.models("fast") if inp.models else None
    chosen, ranked_by = await rank(ordered, conditions, model)
    listed = ", ".join(f"{d.name}({d.category}, 약 {d.price:,}원)" for d in chosen)
    return WorkerResult(
        summary=f"추천 메뉴{avoided}: {listed}",
        data={
            "dishes": [d.name for d in chosen],
            "ranked_by": ranked_by,
            "exclusions": exclusions,
        },
        notices=[prompts.MODEL_RANKING_UNAVAILABLE] if ranked_by == "rules" else [],
    )


def _source(place: dict[str, str], area: str) -> Source:
    return Source(
        doc=place["name"],
        kind="tool",
        article_title=f"{area} · {place['category']}",
        text=place["detail"],
        url=place.get("url"),
    )


@register_worker("restaurant_search_agent", "식당 검색")
async def search_restaurants(inp: WorkerInput) -> WorkerResult:
    """Places near the place for the chosen dishes (the provider's best first)."""
    conv = inp.conversation
    menu = inp.results.get("menu_recommendation_agent")
    chosen = [d for n in (menu.data.get("dishes", []) if menu else []) if (d := dish(n))]
    query = _query(inp, chosen)
    found = await search_places(provider_for(inp.settings), query)
    when = display_value("datetime", conv.slots["datetime"])
    if not found.places:
        return WorkerResult(
            ok=False,
            summary=f"{query.place}에서 {when}에 {query.party}명이 갈 수 있는 식당을 찾지 못했어요.",
            notices=found.notices,
        )
    places = [asdict(p) for p in found.places]
    lines = [
        f"- {p['name']} ({p['category']}, {p['detail']})"
        + (
            ": " + ", ".join(f"{m['name']} {m['price']:,}원" for m in p["menus"])
            if p["menus"]
            else f" — '{p['dish']}' 검색 결과"
        )
        for p in places
    ]
    note = f" ({'·'.join(found.relaxed)} 조건을 넓혀 찾았어요)" if found.relaxed else ""
    return WorkerResult(
        summary=f"추천 식당{note}:\n" + "\n".join(lines),
        data={"restaurants": places, "relaxed": found.relaxed, "provider": found.provider},
        sources=[_source(p, query.area) for p in places],
        notices=found.notices,
    )
