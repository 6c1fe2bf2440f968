"""The Kakao Local provider against a real HTTP server on loopback that speaks Kakao's format:
paging, a wrong key (401), the rate limit (429), a timeout, a missing key — and a lunch turn
that still answers, from the sample catalogue and saying why, when the provider is down."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest
from pydantic import SecretStr

from dure.agent import AgentContext
from dure.agents.tasks import AGENT
from dure.agents.tasks.dishes import dish
from dure.agents.tasks.kakao import NOTICE, KakaoLocal, keyword_search
from dure.agents.tasks.places import SAMPLE_NOTICE, PlaceQuery, search_places
from dure.agents.tasks.prompts import MODEL_RANKING_UNAVAILABLE
from dure.events import Done, stream_turn
from dure.korean.time import SEOUL
from dure.llm import ModelSet
from dure.persistence import open_checkpointer
from dure.settings import Settings
from dure.testing import ScriptedChatModel

KEY = "test-rest-key"
TOTAL = 20  # places the server knows for any query


class Kakao(BaseHTTPRequestHandler):
    """`/v2/local/search/keyword.json` as Kakao documents it; special queries misbehave."""

    requests: list[dict[str, Any]] = []

    def do_GET(self) -> None:
        url = urlparse(self.path)
        args = {k: v[0] for k, v in parse_qs(url.query).items()}
        Kakao.requests.append({"path": url.path, **args, "auth": self.headers["Authorization"]})
        query = args.get("query", "")
        if url.path != "/v2/local/search/keyword.json":
            return self._send(404, {"errorType": "NotFound", "message": "no such path"})
        if self.headers["Authorization"] != f"KakaoAK {KEY}":
            return self._send(401, {"errorType": "AccessDeniedError", "message": "wrong appkey"})
        if "한도" in query:
            return self._send(429, {"errorType": "RateLimitExceeded", "message": "limit"})
        if "느림" in query:
            time.sleep(1.5)
        page, size = int(args.get("page", 1)), int(args.get("size", 15))
        first = (page - 1) * size
        docs = [self._doc(query, i) for i in range(first, min(first + size, TOTAL))]
        meta = {"total_count": TOTAL, "pageable_count": TOTAL, "is_end": first + size >= TOTAL}
        self._send(200, {"meta": meta, "documents": docs})

    @staticmethod
    def _doc(query: str, i: int) -> dict[str, str]:
        dish_word = query.split(" ", 1)[-1]
        return {
            "id": str(1000 + i),
            "place_name": f"{dish_word} 맛집 {i + 1}호",
            "category_name": "음식점 > 한식 > 국수",
            "category_group_code": "FD6",
            "category_group_name": "음식점",
            "phone": "02-000-0000",
            "address_name": "서울 중구 을지로동 1",
            "road_address_name": f"서울 중구 을지로 {i + 1}",
            "x": "126.99",
            "y": "37.56",
            "place_url": f"http://place.map.kakao.com/{1000 + i}",
            "distance": "",
        }

    def _send(self, status: int, body: dict[str, Any]) -> None:
        data = json.dumps(body, ensure_ascii=False).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json;charset=UTF-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def kakao() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Kakao)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.fixture(autouse=True)
def fresh_log() -> None:
    Kakao.requests.clear()


def query(place: str = "을지로", *requirements: str) -> PlaceQuery:
    return PlaceQuery(
        place=place,
        area="을지로",
        dishes=[d for n in ("물냉면", "돼지국밥") if (d := dish(n))],
        when=datetime(2025, 3, 5, 12, 30, tzinfo=SEOUL),
        party=2,
        requirements=list(requirements),
    )


def provider(url: str, key: str | None = KEY, timeout: float = 5.0) -> KakaoLocal:
    return KakaoLocal(SecretStr(key) if key else None, url, timeout)


async def test_keyword_search_follows_pages_until_enough(kakao: str) -> None:
    found = await keyword_search("을지로 냉면", key=KEY, base_url=kakao, timeout=5, limit=20)
    assert [p.place_name for p in found][-1] == "냉면 맛집 20호" and len(found) == 20
    assert [(r["page"], r["size"]) for r in Kakao.requests] == [("1", "15"), ("2", "15")]
    first = Kakao.requests[0]
    assert first["auth"] == f"KakaoAK {KEY}" and first["category_group_code"] == "FD6"
    assert first["query"] == "을지로 냉면"
    few = await keyword_search("을지로 냉면", key=KEY, base_url=kakao, timeout=5, limit=3)
    assert len(few) == 3 and Kakao.requests[-1]["size"] == "3"


async def test_places_for_each_dish_and_what_kakao_cannot_check(kakao: str) -> None:
    found = await search_places(provider(kakao), query("을지로", "주차"))
    assert found.provider == "kakao"
    assert [p.name for p in found.places] == [
        "물냉면 맛집 1호",
        "돼지국밥 맛집 1호",
        "물냉면 맛집 2호",
    ]
    assert found.places[0].url == "http://place.map.kakao.com/1000"
    assert found.places[0].detail.startswith("서울 중구 을지로 1 · 02-000-0000")
    assert NOTICE in found.notices
    assert any("주차" in n and "확인할 수 없어요" in n for n in found.notices)  # said, not dropped


@pytest.mark.parametrize(
    ("where", "key", "timeout", "reason"),
    [
        ("을지로", "wrong-key", 5.0, "API 키가 올바르지 않거나 권한이 없습니다 (HTTP 401)"),
        ("한도", KEY, 5.0, "요청 한도를 넘었습니다"),
        ("느림", KEY, 0.5, "0.5초 안에 응답하지 않았습니다"),
        ("을지로", None, 5.0, "API 키가 설정되지 않아"),
    ],
)
async def test_a_failing_provider_gives_the_reason_and_the_catalogue(
    kakao: str, where: str, key: str | None, timeout: float, reason: str
) -> None:
    found = await search_places(provider(kakao, key, timeout), query(where))
    assert found.provider == "sample" and found.places
    assert reason in found.notices[0] and "샘플 데이터로 대신 찾았어요" in found.notices[0]
    assert SAMPLE_NOTICE in found.notices


async def test_a_lunch_turn_with_kakao_down_still_answers(kakao: str, settings: Settings) -> None:
    settings.tasks.place_search = "kakao"
    settings.tasks.kakao_base_url = kakao
    settings.tasks.kakao_rest_key = SecretStr("wrong-key")
    model = ScriptedChatModel([ConnectionError("down")])  # the menu ranking: no model
    async with open_checkpointer(settings.effective_database_url) as saver:
        ctx = AgentContext(settings, ModelSet(settings, model), saver, {"now": "2025-03-05T10:00"})
        events = [
            e async for e in stream_turn(AGENT, ctx, "k", "을지로 12시 2명 점심, 주차 되는 곳")
        ]
    done = events[-1]
    assert isinstance(done, Done) and not done.waiting and done.sources
    assert "HTTP 401" in done.content and SAMPLE_NOTICE in done.content
    assert MODEL_RANKING_UNAVAILABLE in done.content
    assert Kakao.requests and Kakao.requests[0]["auth"] == "KakaoAK wrong-key"


async def test_with_kakao_any_place_is_searched(kakao: str, settings: Settings) -> None:
    """The catalogue knows a few areas; Kakao finds places anywhere, so the gate takes them."""
    settings.tasks.kakao_base_url = kakao
    settings.tasks.kakao_rest_key = SecretStr(KEY)  # auto: Kakao as soon as a key is set
    model = ScriptedChatModel([ConnectionError("down")])
    async with open_checkpointer(settings.effective_database_url) as saver:
        ctx = AgentContext(settings, ModelSet(settings, model), saver, {"now": "2025-03-05T10:00"})
        events = [e async for e in stream_turn(AGENT, ctx, "b", "부산 서면에서 12시 2명 점심")]
    done = events[-1]
    assert isinstance(done, Done) and not done.waiting
    assert Kakao.requests[0]["query"].startswith("부산 서면 ")
    assert NOTICE in done.content and "맛집 1호" in done.content
    assert SAMPLE_NOTICE not in done.content
