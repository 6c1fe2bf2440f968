"""The HTTP tools against a real local HTTP server speaking OpenWeather, MediaWiki and Tavily.

Each test sets how the server answers (status, JSON body, delay) per path and checks both
what the tool sent (query, key, headers) and what it tells the agent, in Korean, for
success, a missing key, a wrong key, an unknown city, a slow or unreachable service.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from pydantic import SecretStr

from dure.settings import Settings
from dure.tools.base import ToolRegistry, ToolResult
from dure.tools.registry import default_registry

SEOUL = {
    "coord": {"lon": 126.9778, "lat": 37.5683},
    "weather": [{"id": 800, "main": "Clear", "description": "맑음", "icon": "01d"}],
    "main": {
        "temp": 12.34,
        "feels_like": 10.5,
        "temp_min": 9.0,
        "temp_max": 14.2,
        "pressure": 1021,
        "humidity": 45,
    },
    "wind": {"speed": 3.1, "deg": 270},
    "name": "Seoul",
    "sys": {"country": "KR"},
    "cod": 200,
}

KO_WIKI = {
    "batchcomplete": True,
    "query": {
        "pages": [
            {
                "pageid": 2,
                "title": "랭그래프",
                "index": 2,
                "extract": "랭그래프는 에이전트 워크플로를 그래프로 만드는 라이브러리이다.",
                "fullurl": "https://ko.wikipedia.org/wiki/%EB%9E%AD%EA%B7%B8%EB%9E%98%ED%94%84",
            },
            {
                "pageid": 1,
                "title": "LangChain",
                "index": 1,
                "extract": "LangChain은 언어 모델 응용 프로그램 프레임워크이다.",
                "fullurl": "https://ko.wikipedia.org/wiki/LangChain",
            },
        ]
    },
}

EN_WIKI = {
    "query": {
        "pages": [
            {
                "pageid": 7,
                "title": "Dure (labor cooperative)",
                "index": 1,
                "extract": "Dure was a form of cooperative labor in Korean villages.",
                "fullurl": "https://en.wikipedia.org/wiki/Dure",
            }
        ]
    }
}

TAVILY = {
    "query": "LangGraph 최신 버전",
    "answer": "LangGraph 1.x가 최신입니다.",
    "results": [
        {
            "title": "LangGraph releases",
            "url": "https://github.com/langchain-ai/langgraph/releases",
            "content": "Release notes for LangGraph 1.2 …",
            "score": 0.91,
        },
        {
            "title": "LangGraph docs",
            "url": "https://langchain-ai.github.io/langgraph/",
            "content": "Build resilient agents.",
            "score": 0.72,
        },
    ],
    "response_time": 0.42,
}


@dataclass
class Reply:
    status: int = 200
    body: Any = None
    delay: float = 0.0


@dataclass
class FakeAPIs:
    """What the server answers per path, and every request it received."""

    base: str = ""
    replies: dict[str, Reply] = field(default_factory=dict)
    requests: list[dict[str, Any]] = field(default_factory=list)


@pytest.fixture
def apis() -> Iterator[FakeAPIs]:
    state = FakeAPIs()

    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            url = urlsplit(self.path)
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            state.requests.append(
                {
                    "method": self.command,
                    "path": url.path,
                    "query": {k: v[0] for k, v in parse_qs(url.query).items()},
                    "headers": dict(self.headers),
                    "json": json.loads(body) if body else None,
                }
            )
            reply = state.replies.get(url.path, Reply(404, {"message": "not found"}))
            time.sleep(reply.delay)
            data = json.dumps(reply.body, ensure_ascii=False).encode()
            try:
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client timed out and left, as the slow-service test wants

        do_GET = do_POST = _answer

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.base = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield state
    server.shutdown()
    server.server_close()


@pytest.fixture(autouse=True)
def _no_keys_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENWEATHER_API_KEY", raising=False)
    monkeypatch.delenv("TAVILY_API_KEY", raising=False)


def registry_for(settings: Settings, base: str, **cfg: Any) -> ToolRegistry:
    assistant = settings.assistant.model_copy(
        update={
            "openweather_base_url": base,
            "wikipedia_base_url": base + "/{lang}",
            "tavily_base_url": base,
            "http_timeout": 2.0,
            **cfg,
        }
    )
    return default_registry(settings.model_copy(update={"assistant": assistant}))


def free_port() -> int:
    """A loopback port nothing listens on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# --- get_weather -----------------------------------------------------------------------------


async def test_weather(settings: Settings, apis: FakeAPIs) -> None:
    apis.replies["/data/2.5/weather"] = Reply(body=SEOUL)
    tools = registry_for(settings, apis.base, openweather_api_key=SecretStr("ow-key"))
    result = await tools.run("get_weather", {"city": "서울시"})
    assert result.ok
    assert result.content == (
        "서울시의 현재 날씨: 맑음, 기온 12.3°C (체감 10.5°C), 최저 9.0°C / 최고 14.2°C, "
        "습도 45%, 바람 3.1m/s"
    )
    sent = apis.requests[-1]["query"]
    assert sent == {"q": "Seoul", "appid": "ow-key", "units": "metric", "lang": "kr"}


async def test_weather_key_from_the_environment(
    settings: Settings, apis: FakeAPIs, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENWEATHER_API_KEY", "env-key")
    settings = Settings(data_dir=settings.data_dir)  # read after the variable is set
    apis.replies["/data/2.5/weather"] = Reply(body=SEOUL)
    result = await registry_for(settings, apis.base).run("get_weather", {"city": "Tokyo"})
    assert result.ok
    assert apis.requests[-1]["query"]["appid"] == "env-key"
    assert apis.requests[-1]["query"]["q"] == "Tokyo"


async def test_weather_without_a_key(settings: Settings, apis: FakeAPIs) -> None:
    result = await registry_for(settings, apis.base).run("get_weather", {"city": "서울"})
    assert not result.ok
    assert "API 키가 설정되지 않아" in result.content and "OPENWEATHER_API_KEY" in result.content
    assert apis.requests == []  # nothing sent without a key


async def test_weather_unknown_city_and_bad_key(settings: Settings, apis: FakeAPIs) -> None:
    tools = registry_for(settings, apis.base, openweather_api_key=SecretStr("ow-key"))
    apis.replies["/data/2.5/weather"] = Reply(404, {"cod": "404", "message": "city not found"})
    missing = await tools.run("get_weather", {"city": "없는도시"})
    assert not missing.ok and "'없는도시' 도시를 찾을 수 없습니다" in missing.content
    apis.replies["/data/2.5/weather"] = Reply(401, {"cod": 401, "message": "Invalid API key"})
    bad = await tools.run("get_weather", {"city": "서울"})
    assert not bad.ok and "API 키가 올바르지 않거나" in bad.content
    assert "ow-key" not in bad.content


# --- search_wikipedia ------------------------------------------------------------------------


async def test_wikipedia_korean_first(settings: Settings, apis: FakeAPIs) -> None:
    apis.replies["/ko/w/api.php"] = Reply(body=KO_WIKI)
    result = await registry_for(settings, apis.base).run("search_wikipedia", {"query": "랭그래프"})
    assert result.ok
    assert result.content.startswith("(ko.wikipedia.org 검색 결과)")
    assert result.content.index("LangChain") < result.content.index("랭그래프 —")  # by index
    assert [s.doc for s in result.sources] == ["위키백과: LangChain", "위키백과: 랭그래프"]
    assert result.sources[0].url == "https://ko.wikipedia.org/wiki/LangChain"
    assert [r["path"] for r in apis.requests] == ["/ko/w/api.php"]
    query = apis.requests[0]["query"]
    assert query["gsrsearch"] == "랭그래프" and query["generator"] == "search"
    assert "Dure" in apis.requests[0]["headers"]["User-Agent"]


async def test_wikipedia_falls_back_to_english(settings: Settings, apis: FakeAPIs) -> None:
    apis.replies["/ko/w/api.php"] = Reply(body={"batchcomplete": True})  # no results
    apis.replies["/en/w/api.php"] = Reply(body=EN_WIKI)
    result = await registry_for(settings, apis.base).run("search_wikipedia", {"query": "Dure"})
    assert result.ok and result.content.startswith("(en.wikipedia.org 검색 결과)")
    assert [r["path"] for r in apis.requests] == ["/ko/w/api.php", "/en/w/api.php"]


async def test_wikipedia_nothing_found(settings: Settings, apis: FakeAPIs) -> None:
    apis.replies["/ko/w/api.php"] = Reply(body={"batchcomplete": True})
    apis.replies["/en/w/api.php"] = Reply(body={"batchcomplete": True})
    result = await registry_for(settings, apis.base).run("search_wikipedia", {"query": "ㅁㄴㅇㄹ"})
    assert not result.ok and "문서를 찾지 못했습니다" in result.content


# --- web_search ------------------------------------------------------------------------------


async def test_web_search(settings: Settings, apis: FakeAPIs) -> None:
    apis.replies["/search"] = Reply(body=TAVILY)
    tools = registry_for(settings, apis.base, tavily_api_key=SecretStr("tvly-test"))
    result = await tools.run("web_search", {"query": "LangGraph 최신 버전", "max_results": 2})
    assert result.ok
    assert result.content.startswith("요약 답변: LangGraph 1.x가 최신입니다.")
    assert (
        "LangGraph releases — https://github.com/langchain-ai/langgraph/releases" in result.content
    )
    assert [s.url for s in result.sources][1] == "https://langchain-ai.github.io/langgraph/"
    request = apis.requests[-1]
    assert request["method"] == "POST"
    assert request["headers"]["Authorization"] == "Bearer tvly-test"
    assert request["json"]["query"] == "LangGraph 최신 버전"
    assert request["json"]["max_results"] == 2


async def test_web_search_without_a_key(settings: Settings, apis: FakeAPIs) -> None:
    result = await registry_for(settings, apis.base).run("web_search", {"query": "뉴스"})
    assert not result.ok and "TAVILY_API_KEY" in result.content
    assert apis.requests == []


async def test_web_search_rate_limit_and_server_error(settings: Settings, apis: FakeAPIs) -> None:
    tools = registry_for(settings, apis.base, tavily_api_key=SecretStr("tvly-test"))
    apis.replies["/search"] = Reply(429, {"detail": "rate limited"})
    assert "요청 한도를 넘었습니다" in (await tools.run("web_search", {"query": "x"})).content
    apis.replies["/search"] = Reply(502, {"detail": "bad gateway"})
    assert "일시적인 오류" in (await tools.run("web_search", {"query": "x"})).content


# --- unreachable and slow services -----------------------------------------------------------


async def _all_three(tools: ToolRegistry) -> list[ToolResult]:
    return [
        await tools.run("get_weather", {"city": "서울"}),
        await tools.run("search_wikipedia", {"query": "서울"}),
        await tools.run("web_search", {"query": "서울"}),
    ]


async def test_unreachable_services(settings: Settings) -> None:
    tools = registry_for(
        settings,
        f"http://127.0.0.1:{free_port()}",
        openweather_api_key=SecretStr("k"),
        tavily_api_key=SecretStr("k"),
    )
    for result in await _all_three(tools):
        assert not result.ok
        assert "연결할 수 없습니다" in result.content


async def test_real_hosts_are_unreachable_in_tests_and_say_so(settings: Settings) -> None:
    # The default public URLs: the test network guard refuses them, like a network outage.
    assistant = settings.assistant.model_copy(
        update={"openweather_api_key": SecretStr("k"), "tavily_api_key": SecretStr("k")}
    )
    tools = default_registry(settings.model_copy(update={"assistant": assistant}))
    for result in await _all_three(tools):
        assert not result.ok and "연결할 수 없습니다" in result.content


async def test_slow_services_time_out(settings: Settings, apis: FakeAPIs) -> None:
    for path, body in (("/data/2.5/weather", SEOUL), ("/ko/w/api.php", KO_WIKI)):
        apis.replies[path] = Reply(body=body, delay=1.5)
    apis.replies["/en/w/api.php"] = Reply(body=EN_WIKI, delay=1.5)
    apis.replies["/search"] = Reply(body=TAVILY, delay=1.5)
    tools = registry_for(
        settings,
        apis.base,
        http_timeout=0.3,
        openweather_api_key=SecretStr("k"),
        tavily_api_key=SecretStr("k"),
    )
    for result in await _all_three(tools):
        assert not result.ok
        assert "0.3초 안에 응답하지 않았습니다" in result.content
