"""Kakao Local keyword search as a place-search provider (`DURE_TASKS__KAKAO_REST_KEY`).

`GET /v2/local/search/keyword.json` with `query`, `category_group_code` FD6 (음식점), `page`
(1–45) and `size` (1–15), header `Authorization: KakaoAK <key>`; the reply is `{"meta":
{"total_count", "pageable_count", "is_end"}, "documents": [...]}`. It knows places and their
categories — no menus, prices, hours, seats or parking — so every requirement is left to the
answer's notice, and the dish is only the search word.
"""

from __future__ import annotations

import asyncio

from pydantic import BaseModel, SecretStr, ValidationError

from dure.agents.tasks.places import MAX_PLACES, Found, Place, PlaceQuery
from dure.settings import Settings
from dure.tools._http import ServiceError, api_key, missing_key_message, request_json

SERVICE = "카카오 장소 검색"
RESTAURANTS = "FD6"
PAGE_SIZE = 15
MAX_PAGE = 45
NOTICE = (
    "카카오 장소 검색 결과예요. 메뉴·가격·영업시간·좌석은 카카오 장소 정보에 없어 "
    "확인하지 못했어요."
)


class KakaoPlace(BaseModel):
    """One document of the reply (the fields Dure shows)."""

    id: str
    place_name: str
    category_name: str = ""
    phone: str = ""
    address_name: str = ""
    road_address_name: str = ""
    place_url: str = ""
    distance: str = ""


class _Meta(BaseModel):
    is_end: bool = True


class _Reply(BaseModel):
    meta: _Meta
    documents: list[KakaoPlace]


async def keyword_search(
    query: str, *, key: str, base_url: str, timeout: float, limit: int
) -> list[KakaoPlace]:
    """Up to `limit` restaurants for `query`, following pages until `is_end`."""
    found: list[KakaoPlace] = []
    page = 1
    while len(found) < limit and page <= MAX_PAGE:
        data = await request_json(
            "GET",
            f"{base_url.rstrip('/')}/v2/local/search/keyword.json",
            service=SERVICE,
            timeout=timeout,
            params={
                "query": query,
                "category_group_code": RESTAURANTS,
                "page": page,
                "size": min(PAGE_SIZE, limit),
            },
            headers={"Authorization": f"KakaoAK {key}"},
        )
        try:
            reply = _Reply.model_validate(data)
        except ValidationError:
            raise ServiceError(f"{SERVICE}의 응답을 해석할 수 없습니다.") from None
        found += reply.documents
        if reply.meta.is_end or not reply.documents:
            break
        page += 1
    return found[:limit]


def _place(doc: KakaoPlace, dish: str) -> Place:
    where = doc.road_address_name or doc.address_name
    parts = [where, doc.phone, f"{doc.distance}m" if doc.distance else ""]
    return Place(
        name=doc.place_name,
        category=doc.category_name.split(" > ")[-1] or "음식점",
        dish=dish,
        detail=" · ".join(p for p in parts if p),
        url=doc.place_url or None,
    )


def uses_kakao(settings: Settings) -> bool:
    """Lunch searches Kakao (`tasks.place_search`: kakao, or auto with a key set)."""
    t = settings.tasks
    return t.place_search == "kakao" or (
        t.place_search == "auto" and bool(api_key(t.kakao_rest_key))
    )


class KakaoLocal:
    """Real places by keyword: "<place> <dish>" for each dish chosen."""

    name = "kakao"
    checks: frozenset[str] = frozenset()

    def __init__(self, key: SecretStr | None, base_url: str, timeout: float) -> None:
        self.key = api_key(key)
        self.base_url = base_url
        self.timeout = timeout

    async def search(self, query: PlaceQuery) -> Found:
        """The first places for each dish, taken in turns, without repeats."""
        if not self.key:
            raise ServiceError(
                missing_key_message(
                    "카카오 로컬", "DURE_TASKS__KAKAO_REST_KEY", "tasks.kakao_rest_key"
                )
            )
        found = await asyncio.gather(  # one search a dish, at once
            *(
                keyword_search(
                    f"{query.place} {d.name}",
                    key=self.key,
                    base_url=self.base_url,
                    timeout=self.timeout,
                    limit=MAX_PLACES,
                )
                for d in query.dishes
            )
        )
        per_dish = [
            [_place(doc, d.name) for doc in docs]
            for d, docs in zip(query.dishes, found, strict=True)
        ]
        places: dict[str, Place] = {}
        for rank in range(MAX_PLACES):
            for dish_places in per_dish:
                if rank < len(dish_places) and len(places) < MAX_PLACES:
                    places.setdefault(dish_places[rank].name, dish_places[rank])
        return Found(list(places.values()), self.name, notices=[NOTICE])
