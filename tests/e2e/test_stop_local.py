"""Stop means stop, with the real local model behind a live server: a turn waiting for the model
says where it waits, and a stopped turn frees the model within a second or two — mid-answer,
and while llama.cpp evaluates a prompt. One turn's worth of decoding in all."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from dure.llm.local import local_chat_model
from dure.server import create_app
from dure.settings import Settings
from server_support import live_server, parse_sse, server_settings, sse_message

pytestmark = pytest.mark.local_model

LONG = "봄, 여름, 가을, 겨울 각각의 특징을 아주 길고 자세하게 설명해 줘."
#: A message whose prompt takes llama.cpp seconds to evaluate (no earlier prompt starts like it).
WORDY = "우리 회사는 서울에 있고 직원은 스무 명이며 봄마다 야유회를 갑니다. " * 12 + LONG


def _until(pairs: Iterator[tuple[str | None, Any]], wanted: str) -> dict[str, Any]:
    for event, data in pairs:
        if event == wanted:
            return data
        assert event not in ("done", "error"), (event, data)
    raise AssertionError(f"no {wanted} event")


def _freed_within(engine: Any, holders: int) -> float:
    """Seconds until at most `holders` calls hold or wait for the model (fails after 10)."""
    started = time.monotonic()
    while len(engine.line) > holders:
        assert time.monotonic() - started < 10, "the model is still busy"
        time.sleep(0.02)
    return time.monotonic() - started


def test_a_stopped_turn_frees_the_model_at_once_and_a_waiting_one_shows_its_place(
    settings: Settings,
) -> None:
    if not settings.model_path.is_file():
        pytest.fail(
            f"로컬 모델이 없습니다: {settings.model_path} (DURE_LOCAL__PATH=$(dure models path))"
        )
    engine = local_chat_model(settings, "fast").engine()  # the one the server's turns share
    served = server_settings(settings, auth=False, rate_limit_per_minute=0)
    with live_server(create_app(served)) as url:
        first, second = (
            httpx.post(f"{url}/threads", json={"agent": "assistant"}).json()["id"] for _ in "ab"
        )
        with sse_message(url, first, LONG, timeout=300) as answering:
            pairs = parse_sse(answering.iter_lines())
            _until(pairs, "token")  # mid-answer
            with sse_message(url, second, WORDY, timeout=300) as waiting:
                later = parse_sse(waiting.iter_lines())
                queued = _until(later, "queued")
                assert (queued["ahead"], queued["content"]) == (1, "대기 중: 앞에 1개")

                stopped = httpx.post(f"{url}/threads/{first}/cancel", timeout=30)
                assert stopped.json()["status"] == "cancelled"
                assert _freed_within(engine, holders=1) < 2  # only the waiting turn holds it now
                assert [e for e, _ in pairs][-2:] == ["error", "done"]

                # The second turn now evaluates its prompt (seconds of work): stopped there too.
                time.sleep(0.5)
                assert httpx.post(f"{url}/threads/{second}/cancel", timeout=30).status_code == 200
                assert _freed_within(engine, holders=0) < 2
                assert [e for e, _ in later][-2:] == ["error", "done"]
