"""Where lunch looks for restaurants: one interface, two providers.

`SampleCatalogue` is the shipped, fictional catalogue (the embedded default; every answer from
it says it is sample data): it knows opening hours, party sizes, menus with prices and tags,
so it can check the dishes, the budget and requirements such as parking. `KakaoLocal`
(`kakao.py`) searches real places by keyword; it knows names, categories, addresses and
distances, nothing about menus, hours or parking — what it cannot check, the answer says.
`search_places` never fails a turn: a missing key, a timeout, a refused key or a rate limit
becomes a Korean notice and the catalogue's answer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol

from dure.agents.tasks.catalogue import Restaurant, restaurants
from dure.agents.tasks.dishes import Dish, dish
from dure.tools._http import ServiceError

MAX_PLACES = 3
SAMPLE_NOTICE = "아래 식당은 시연용 샘플 데이터(가상의 식당)예요. 실제 식당 정보가 아닙니다."


@dataclass(frozen=True)
class PlaceQuery:
    """What to look for: the dishes chosen, near the place, for this party, time and budget."""

    place: str
    area: str
    dishes: list[Dish]
    when: datetime
    party: int
    budget: dict[str, int] | None = None
    requirements: list[str] = field(default_factory=list)
    exclusions: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Place:
    """One place found: a line for the answer and a source."""

    name: str
    category: str
    dish: str
    detail: str
    #: `{"name", "price"}` of the dishes it serves that the user did not exclude (if known).
    menus: list[dict[str, str | int]] = field(default_factory=list)
    url: str | None = None


@dataclass
class Found:
    """A provider's answer: places, the conditions it relaxed, and what the answer must say."""

    places: list[Place]
    provider: str
    relaxed: list[str] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)


class PlaceSearch(Protocol):
    """A place-search provider."""

    name: str
    #: Requirements ("주차", "룸" …) it can check; the others are said to be unchecked.
    checks: frozenset[str]

    async def search(self, query: PlaceQuery) -> Found: ...


def unchecked(provider: PlaceSearch, requirements: list[str]) -> str | None:
    """The notice for requirements this provider cannot check (never silently dropped)."""
    missing = [r for r in requirements if r not in provider.checks]
    if not missing:
        return None
    return (
        f"요청하신 조건({', '.join(missing)})은 이 검색 결과로 확인할 수 없어요. "
        "방문 전 가게에 직접 확인해 주세요."
    )


class SampleCatalogue:
    """The shipped fictional catalogue (`data/restaurants.json`)."""

    name = "sample"
    checks = frozenset({"주차", "단체석", "룸", "예약 가능"})

    def _fits(self, r: Restaurant, q: PlaceQuery) -> bool:
        return (
            r.area == q.area
            and r.is_open(q.when)
            and r.max_party >= q.party
            and all(need in r.tags for need in q.requirements if need in self.checks)
        )

    def nearby(self, q: PlaceQuery) -> set[str]:
        """Dishes served at the places that fit (the menu's rule order puts them first)."""
        return {m.name for r in restaurants() if self._fits(r, q) for m in r.menus}

    @staticmethod
    def _menus(r: Restaurant, q: PlaceQuery) -> list[tuple[str, int]]:
        """The restaurant's dishes that break none of the exclusions (unknown ones left out)."""
        return [
            (m.name, m.price)
            for m in r.menus
            if (d := dish(m.name)) and not any(d.breaks(e) for e in q.exclusions)
        ]

    def _within(self, r: Restaurant, q: PlaceQuery) -> bool:
        low, high = (q.budget or {}).get("min", 0), (q.budget or {}).get("max")
        prices = [p for _, p in self._menus(r, q)]
        return bool(prices) and (high is None or min(prices) <= high) and max(prices) >= low

    async def search(self, q: PlaceQuery) -> Found:
        """Places serving the dishes; else any fitting place with an allowed dish; then over
        budget — each relaxation said."""
        names = {d.name for d in q.dishes}
        fitting = [r for r in restaurants() if self._fits(r, q) and self._menus(r, q)]
        steps = [
            ([], lambda r: any(m in names for m, _ in self._menus(r, q)) and self._within(r, q)),
            (["메뉴"], lambda r: self._within(r, q)),
            (["메뉴", "예산"], lambda r: True),
        ]
        for relaxed, keep in steps:
            if found := [r for r in fitting if keep(r)]:
                top = sorted(found, key=lambda r: -_score(r, q.party))[:MAX_PLACES]
                places = [_sample_place(r, q, names) for r in top]
                return Found(places, self.name, relaxed, [SAMPLE_NOTICE])
        return Found([], self.name, notices=[SAMPLE_NOTICE])


def _score(r: Restaurant, party: int) -> float:
    bonus = 0.3 if (party == 1 and "혼밥" in r.tags) or (party >= 6 and "단체석" in r.tags) else 0.0
    return r.rating + bonus - r.walk_minutes * 0.02


def _sample_place(r: Restaurant, q: PlaceQuery, names: set[str]) -> Place:
    menus = SampleCatalogue._menus(r, q)
    served = next((m for m, _ in menus if m in names), "")
    tags = f" · {', '.join(r.tags)}" if r.tags else ""
    return Place(
        name=r.name,
        category=r.cuisine,
        dish=served,
        detail=f"{r.station} 도보 {r.walk_minutes}분 · 평점 {r.rating} · 최대 {r.max_party}명{tags}",
        menus=[{"name": m, "price": p} for m, p in menus],
    )


async def search_places(provider: PlaceSearch, query: PlaceQuery) -> Found:
    """Search, falling back to the catalogue with the reason when the provider cannot answer."""
    try:
        found = await provider.search(query)
    except ServiceError as e:
        fallback = SampleCatalogue()
        found = await fallback.search(query)
        found.notices.insert(0, f"{e} 그래서 샘플 데이터로 대신 찾았어요.")
        provider = fallback
    if notice := unchecked(provider, query.requirements):
        found.notices.append(notice)
    return found
