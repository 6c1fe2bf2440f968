"""Bookings through the server: the API key that booked a room is the one that may cancel it."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta

import pytest
from fastapi.testclient import TestClient

from dure.agents.tasks.bookings import BookingStore
from dure.korean.time import SEOUL
from dure.llm import ModelSet
from dure.server import create_app
from dure.server.keys import create_key
from dure.settings import Settings
from dure.testing import Call, Reply, ScriptedChatModel
from server_support import parse_sse


def echo(call: Call) -> Reply:
    """The answer model repeats the workers' results."""
    return call.prompt.split("작업 결과:", 1)[1].split("사용자의 요청:", 1)[0].strip()


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    app = create_app(settings, models=ModelSet(settings, ScriptedChatModel(echo)))
    with TestClient(app) as c:
        yield c


def key(client: TestClient, name: str) -> dict[str, str]:
    _, secret = client.portal.call(create_key, client.app.state.turns.store.db, name)
    return {"Authorization": f"Bearer {secret}"}


def say(client: TestClient, headers: dict[str, str], thread: str, content: str) -> str:
    with client.stream(
        "POST",
        f"/threads/{thread}/messages",
        json={"content": content},
        headers={**headers, "Accept": "text/event-stream"},
    ) as r:
        assert r.status_code == 200, r.read()
        events = list(parse_sse(r.iter_lines()))
    return str(next(data for kind, data in events if kind == "done")["content"])


def test_only_the_key_that_booked_may_cancel(client: TestClient, settings: Settings) -> None:
    alice, bob = key(client, "alice"), key(client, "bob")
    threads = {
        name: client.post("/threads", json={"agent": "tasks"}, headers=h).json()["id"]
        for name, h in (("alice", alice), ("bob", bob))
    }
    say(client, alice, threads["alice"], "내일 오후 3시 회의실 4명")
    assert "예약 완료" in say(client, alice, threads["alice"], "네")
    start = datetime.now(SEOUL).replace(hour=15, minute=0, second=0, microsecond=0)
    start += timedelta(days=1)
    store = BookingStore(settings.effective_database_url)
    assert len(store.starting_at(start)) == 1

    say(client, bob, threads["bob"], "내일 3시 회의실 예약 취소해줘")
    refused = say(client, bob, threads["bob"], "네")
    assert "다른 사용자가 만든 예약이라 취소할 수 없어요" in refused
    assert len(store.starting_at(start)) == 1

    say(client, alice, threads["alice"], "취소할게")
    assert "예약을 취소했어요" in say(client, alice, threads["alice"], "네")
    assert store.starting_at(start) == []
