"""The OpenAI-compatible API with the official `openai` client against a live loopback server."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import openai
import pytest

from dure.server import create_app
from dure.server.database import open_storage
from dure.server.keys import create_key
from dure.settings import Settings
from server_agents import EXTRA_AGENTS
from server_support import live_server

EXPECTED = (
    "**표준계약서 제5조 (계약기간)**에 따르면 다음과 같습니다.\n\n"
    "- 질문: 계약기간은?\n- 근거: `표준계약서 제5조 (계약기간)`\n\n"
    "자세한 내용은 출처를 눌러 확인하세요."
)


@pytest.fixture
def server(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, list]]:
    """A live server and two API keys."""
    monkeypatch.setenv("DURE_EXTRA_AGENTS", EXTRA_AGENTS)

    async def keys() -> list[str]:
        async with open_storage(settings.effective_database_url) as storage:
            return [(await create_key(storage.db, n))[1] for n in ("a", "b")]

    secrets = asyncio.run(keys())
    with live_server(create_app(settings)) as url:
        yield f"{url}/v1", secrets


def client(base_url: str, key: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=base_url, api_key=key, max_retries=0, timeout=30)


def test_models_are_the_agents(server) -> None:
    base, (key, _) = server
    ids = {m.id for m in client(base, key).models.list()}
    assert {"dure-qa", "dure-slots"} <= ids


def test_non_streaming_completion(server) -> None:
    base, (key, _) = server
    raw = client(base, key).chat.completions.with_raw_response.create(
        model="dure-qa", messages=[{"role": "user", "content": "계약기간은?"}]
    )
    completion = raw.parse()
    assert completion.choices[0].message.content == EXPECTED
    assert completion.choices[0].finish_reason == "stop"
    assert completion.usage.completion_tokens > 0
    assert len(raw.headers["x-dure-thread"]) == 32


def test_streaming_completion_matches(server) -> None:
    base, (key, _) = server
    chunks = list(
        client(base, key).chat.completions.create(
            model="dure-qa",
            messages=[{"role": "user", "content": "계약기간은?"}],
            stream=True,
            stream_options={"include_usage": True},
        )
    )
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == EXPECTED
    assert sum(1 for c in chunks if c.choices and c.choices[0].delta.content) > 5
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "stop"
    assert chunks[-1].usage is not None and chunks[-1].usage.total_tokens > 0


def test_user_field_and_header_choose_the_thread(server) -> None:
    base, (key, other) = server
    c = client(base, key)
    ask = {"model": "dure-slots", "user": "민수"}
    first = c.chat.completions.with_raw_response.create(
        messages=[{"role": "user", "content": "예약해 줘"}], **ask
    )
    assert first.parse().choices[0].message.content == "장소, 인원을(를) 알려 주세요."
    second = c.chat.completions.create(
        messages=[{"role": "user", "content": "을지로에서 2명"}], **ask
    )
    assert second.choices[0].message.content == "을지로에서 2명 예약을 마쳤습니다."

    thread = first.headers["x-dure-thread"]
    again = c.chat.completions.create(
        model="dure-slots",
        messages=[{"role": "user", "content": "종로에서 3명"}],
        extra_headers={"X-Dure-Thread": thread},
    )
    assert again.choices[0].message.content  # continued on the same thread
    with pytest.raises(openai.NotFoundError, match="대화를 찾을 수 없습니다"):
        client(base, other).chat.completions.create(
            model="dure-slots",
            messages=[{"role": "user", "content": "안녕"}],
            extra_headers={"X-Dure-Thread": thread},
        )


def test_resent_history_continues_the_same_thread(server) -> None:
    """Chat front ends send the whole conversation and no thread id."""
    base, (key, _) = server
    c = client(base, key)
    history = [{"role": "user", "content": "예약해 줘"}]
    raw = c.chat.completions.with_raw_response.create(model="dure-slots", messages=history)
    history.append({"role": "assistant", "content": raw.parse().choices[0].message.content})
    history.append({"role": "user", "content": "을지로에서 2명"})
    raw2 = c.chat.completions.with_raw_response.create(model="dure-slots", messages=history)
    assert raw2.parse().choices[0].message.content == "을지로에서 2명 예약을 마쳤습니다."
    assert raw2.headers["x-dure-thread"] == raw.headers["x-dure-thread"]


def test_errors_in_openai_shape(server) -> None:
    base, (key, _) = server
    with pytest.raises(openai.AuthenticationError):
        client(base, "dure_wrong").models.list()
    with pytest.raises(openai.NotFoundError, match="알 수 없는 모델"):
        client(base, key).chat.completions.create(
            model="gpt-4o", messages=[{"role": "user", "content": "안녕"}]
        )
    with pytest.raises(openai.UnprocessableEntityError):
        client(base, key).chat.completions.create(model="dure-qa", messages=[])
