"""The `openai` provider for real, on loopback.

A real OpenAI-compatible server (llama-cpp-python's, serving the local model) answers plain,
streamed, structured and tool-calling requests; tiny local HTTP servers play a slow server
and a rate-limiting one to prove timeouts and retries.
"""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Literal

import httpx
import openai
import pytest
from langchain_core.messages import HumanMessage, SystemMessage
from langchain_core.tools import tool
from pydantic import BaseModel

from dure.errors import DureError
from dure.llm import agenerate_structured, generate_structured
from dure.llm import openai_compat as oc
from dure.llm.openai_compat import check_endpoint, openai_chat_model
from dure.settings import Settings

pytestmark = pytest.mark.local_model


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`python -m llama_cpp.server` with the local model; yields its base URL."""
    model = Settings().model_path
    if not model.is_file():
        pytest.fail(
            f"로컬 모델이 없습니다: {model} — `make test`(또는 `dure models pull`)가 먼저 준비합니다."
        )
    port = _free_port()
    log = tmp_path_factory.mktemp("llama-server") / "server.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "llama_cpp.server", "--model", str(model)]
            + ["--host", "127.0.0.1", "--port", str(port), "--n_ctx", "4096", "--n_threads", "2"],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.1:{port}/v1"
    try:
        _wait_until_up(base, proc, log)
        yield base
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _wait_until_up(base: str, proc: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"llama_cpp.server exited:\n{log.read_text(errors='replace')[-2000:]}")
        try:
            if httpx.get(f"{base}/models", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    pytest.fail("llama_cpp.server did not start within 180 s")


@pytest.fixture
def server_settings(llama_server: str, monkeypatch: pytest.MonkeyPatch) -> Settings:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    # A generous timeout: on a busy 2-core machine one request may wait minutes for the CPU.
    return Settings(provider="openai", base_url=llama_server, max_retries=0, request_timeout=900)


@tool
def get_weather(city: str) -> str:
    """도시의 현재 날씨를 알려 줍니다."""
    return "맑음"


@tool
def calculator(expression: str) -> str:
    """수식을 계산합니다."""
    return "0"


WEATHER_QUESTION = [HumanMessage("서울 날씨 알려줘")]


class Sentiment(BaseModel):
    """문장의 감정."""

    label: Literal["긍정", "부정"]


SENTIMENT_PROMPT = [
    SystemMessage("문장의 감정을 긍정 또는 부정으로 분류하세요."),
    HumanMessage("이 제품 정말 최고예요! 또 살게요."),
]


def test_the_endpoint_check_passes(server_settings):
    check_endpoint(server_settings)


def test_a_plain_answer(server_settings):
    reply = openai_chat_model(server_settings, "fast").invoke(
        [HumanMessage("대한민국의 수도는 어디인가요? 도시 이름만 답하세요.")], max_tokens=16
    )
    assert "서울" in reply.text
    assert reply.usage_metadata["input_tokens"] > 0


async def test_streaming_yields_tokens(server_settings):
    model = openai_chat_model(server_settings, "fast")
    texts = [
        c.text
        async for c in model.astream(
            [HumanMessage("1부터 5까지 쉼표로 세어 주세요.")], max_tokens=32
        )
    ]
    assert sum(1 for t in texts if t) > 3
    assert "3" in "".join(texts)


def test_structured_output_in_llama_cpp_dialect(server_settings):
    s = server_settings.model_copy(update={"json_mode": "json_object"})
    assert (
        generate_structured(openai_chat_model(s, "fast"), SENTIMENT_PROMPT, Sentiment).label
        == "긍정"
    )


@pytest.mark.parametrize("streamed", [False, True], ids=["invoke", "stream"])
async def test_structured_output_by_default_falls_back_when_json_schema_is_refused(
    server_settings, monkeypatch, streamed
):
    # The default dialect is `json_schema` (OpenAI, vLLM, Ollama, LM Studio, llama-server);
    # llama-cpp-python's server refuses it, so the provider switches to `json_object`.
    # Inside a graph streaming "messages" every call is streamed: both paths must fall back.
    monkeypatch.setattr(oc, "_json_object_servers", set())
    model = openai_chat_model(server_settings, "fast")
    assert model.json_mode == "json_schema"
    if streamed:
        model = model.bind(stream=True)
    result = await agenerate_structured(model, SENTIMENT_PROMPT, Sentiment)
    assert result.label == "긍정"
    assert server_settings.base_url in oc._json_object_servers


@pytest.mark.parametrize("choice", ["get_weather", "required"])
def test_a_forced_tool_choice(server_settings, choice):
    model = openai_chat_model(server_settings, "fast").bind_tools(
        [calculator, get_weather], tool_choice=choice
    )
    (call,) = model.invoke(WEATHER_QUESTION).tool_calls
    assert call["name"] == "get_weather" and "서울" in call["args"]["city"]


async def test_a_text_tool_call_becomes_a_tool_call_with_auto_choice(server_settings):
    model = openai_chat_model(server_settings, "fast").bind_tools([calculator, get_weather])
    reply = await model.ainvoke(WEATHER_QUESTION)
    chunks = [c async for c in model.astream(WEATHER_QUESTION)]
    streamed = sum(chunks[1:], chunks[0])
    for msg in (reply, streamed):
        (call,) = msg.tool_calls
        assert call["name"] == "get_weather" and "서울" in call["args"]["city"]
        assert msg.text == ""
        # Converted here: the server sent the call as fenced JSON text (its own ids differ).
        assert re.fullmatch(r"call_[0-9a-f]{12}", call["id"])
    assert not any(c.text for c in chunks)  # the JSON never reached the token stream


# --- timeouts and retries against tiny local servers ------------------------------------------

COMPLETION = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "created": 0,
    "model": "m",
    "choices": [
        {
            "index": 0,
            "message": {"role": "assistant", "content": "안녕하세요"},
            "finish_reason": "stop",
        }
    ],
    "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
}

Behaviour = Callable[[BaseHTTPRequestHandler, int], None]


class _Server:
    """A loopback HTTP server whose n-th request (0-based) is answered by `behaviour`."""

    def __init__(self, behaviour: Behaviour) -> None:
        self.requests: list[str] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def _handle(self) -> None:
                n = len(outer.requests)
                outer.requests.append(self.path)
                length = int(self.headers.get("content-length") or 0)
                self.rfile.read(length)
                try:
                    behaviour(self, n)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)

            do_GET = do_POST = _handle

            def log_message(self, *args: object) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def serve():
    servers: list[_Server] = []

    def start(behaviour: Behaviour) -> _Server:
        servers.append(_Server(behaviour))
        return servers[-1]

    yield start
    for s in servers:
        s.close()


def _reply(h: BaseHTTPRequestHandler, status: int, body: dict, **headers: str) -> None:
    data = json.dumps(body).encode()
    h.send_response(status)
    h.send_header("content-type", "application/json")
    h.send_header("content-length", str(len(data)))
    for k, v in headers.items():
        h.send_header(k.replace("_", "-"), v)
    h.end_headers()
    h.wfile.write(data)


def _settings(base_url: str, **kw: object) -> Settings:
    return Settings(provider="openai", base_url=base_url, api_key="sk-test", **kw)


@pytest.mark.parametrize("retries", [0, 1])
def test_a_slow_server_times_out(serve, retries):
    server = serve(lambda h, n: (time.sleep(3), _reply(h, 200, COMPLETION)))
    model = openai_chat_model(
        _settings(server.base_url, request_timeout=0.3, max_retries=retries), "fast"
    )
    with pytest.raises(openai.APITimeoutError):
        model.invoke("안녕")
    assert len(server.requests) == 1 + retries


def _flaky(h: BaseHTTPRequestHandler, n: int) -> None:
    if n == 0:
        _reply(h, 429, {"error": {"message": "rate limited"}}, retry_after_ms="10")
    elif n == 1:
        _reply(h, 503, {"error": {"message": "overloaded"}}, retry_after_ms="10")
    elif n == 2:
        h.close_connection = True  # drop the connection without answering
    else:
        _reply(h, 200, COMPLETION)


def test_rate_limits_server_errors_and_dropped_connections_are_retried(serve):
    server = serve(_flaky)
    model = openai_chat_model(_settings(server.base_url, max_retries=3), "fast")
    assert model.invoke("안녕").text == "안녕하세요"
    assert server.requests == ["/v1/chat/completions"] * 4


def test_retries_give_up_after_max_retries(serve):
    server = serve(
        lambda h, n: _reply(h, 429, {"error": {"message": "slow down"}}, retry_after_ms="10")
    )
    model = openai_chat_model(_settings(server.base_url, max_retries=2), "fast")
    with pytest.raises(openai.RateLimitError):
        model.invoke("안녕")
    assert len(server.requests) == 3


@pytest.mark.parametrize(
    ("status", "body", "message"),
    [
        (401, {"error": {"message": "bad key"}}, "API 키가 거부되었습니다 (HTTP 401)"),
        (404, {"detail": "Not Found"}, "OpenAI 호환 API를 찾을 수 없습니다"),
        (200, {"hello": "world"}, "OpenAI 호환 API의 응답이 아닙니다"),
        (500, {"error": "boom"}, "HTTP 500"),
    ],
)
def test_the_endpoint_check_explains_what_is_wrong(serve, status, body, message):
    server = serve(lambda h, n: _reply(h, status, body))
    with pytest.raises(DureError, match=re.escape(message)):
        check_endpoint(_settings(server.base_url))
    assert server.requests == ["/v1/models"]


def test_the_endpoint_check_reports_an_unreachable_server():
    with pytest.raises(DureError, match="연결할 수 없습니다: http://127.0.0.1:9/v1"):
        check_endpoint(_settings("http://127.0.0.1:9/v1"))
