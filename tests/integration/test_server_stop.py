"""Stopping answers over real HTTP (a live loopback server, httpx, the scripted `qa` agent whose
"천천히" answer streams for seconds): the cancel request, a client that leaves, a client that
reattaches, and the thread afterwards; a cancel sent to another `dure serve` process."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from dure.server import create_app
from dure.settings import Settings
from server_agents import EXTRA_AGENTS
from server_support import (
    ServerProcess,
    live_server,
    make_key,
    parse_sse,
    server_env,
    server_settings,
    sse_message,
)

SLOW = "천천히 알려 줘"
NOTE = "답변을 중지했습니다."


@pytest.fixture
def serve(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """Start a live server (auth off on loopback) with some `server.*` settings."""
    monkeypatch.setenv("DURE_EXTRA_AGENTS", EXTRA_AGENTS)
    servers: list[Any] = []

    def start(**server: object) -> str:
        served = server_settings(settings, auth=False, rate_limit_per_minute=0, **server)
        running = live_server(create_app(served))
        servers.append(running)
        return running.__enter__()

    yield start
    for running in servers:
        running.__exit__(None, None, None)


def new_thread(url: str) -> str:
    return httpx.post(f"{url}/threads", json={"agent": "qa"}).json()["id"]


def turns(url: str, tid: str) -> list[dict[str, Any]]:
    return httpx.get(f"{url}/threads/{tid}", timeout=30).json()["turns"]


def events_until_token(lines: Iterator[str]) -> list[tuple[str | None, Any]]:
    """SSE (event, data) pairs up to and including the first token."""
    seen = []
    for pair in parse_sse(lines):
        seen.append(pair)
        if pair[0] == "token":
            return seen
    raise AssertionError(f"the stream ended before any token: {seen}")


def test_cancel_stops_the_answer_and_the_thread_takes_the_next_message(serve) -> None:
    url = serve()
    tid = new_thread(url)
    assert httpx.post(f"{url}/threads/{tid}/cancel").status_code == 409  # nothing to stop

    with sse_message(url, tid, SLOW) as r:
        lines = r.iter_lines()
        before = events_until_token(lines)
        asked = time.monotonic()
        stopped = httpx.post(f"{url}/threads/{tid}/cancel", timeout=10)
        assert time.monotonic() - asked < 2
        rest = list(parse_sse(lines))

    assert stopped.status_code == 200
    assert stopped.json() == {
        "thread_id": tid,
        "turn_id": r.headers["x-dure-turn"],
        "status": "cancelled",
    }
    # The stream ends at once: an error saying the answer was stopped, then done.
    streamed = "".join(d["content"] for e, d in before + rest if e == "token")
    (error,) = [d for e, d in rest if e == "error"]
    assert error == {"type": "error", "content": NOTE, "code": "cancelled"}
    assert rest[-1][0] == "done" and rest[-1][1]["content"] == f"{streamed.rstrip()}\n\n({NOTE})"
    assert len(streamed) < 40  # far from the whole answer (about 130 characters)

    (turn,) = turns(url, tid)
    assert (turn["status"], turn["message"]) == ("cancelled", SLOW)
    assert turn["answer"].endswith(f"({NOTE})")
    # The thread reads as before the stopped turn, and answers the next message in full.
    view = httpx.get(f"{url}/threads/{tid}").json()
    assert view["state"]["messages"] == []
    answer = httpx.post(
        f"{url}/threads/{tid}/messages", json={"content": "계약기간은?"}, timeout=30
    )
    assert answer.status_code == 200 and "계약기간" in answer.json()["answer"]
    assert [t["status"] for t in turns(url, tid)] == ["cancelled", "done"]
    # The next message came with the stopped exchange as its previous turn: the conversation
    # holds the stopped question and its note, so "다시 해 줘" has something to refer to.
    messages = httpx.get(f"{url}/threads/{tid}").json()["state"]["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user", "assistant"]
    assert messages[0]["content"] == SLOW and messages[1]["content"].endswith(f"({NOTE})")


def test_a_client_that_leaves_stops_its_answer_after_the_grace_period(serve) -> None:
    url = serve(detach_grace_seconds=0.5)
    tid = new_thread(url)
    with sse_message(url, tid, SLOW) as r:
        events_until_token(r.iter_lines())
    # The connection is closed: within the grace period plus a chunk the turn is stopped.
    deadline = time.monotonic() + 5
    while turns(url, tid)[0]["status"] == "running" and time.monotonic() < deadline:
        time.sleep(0.1)
    assert turns(url, tid)[0]["status"] == "cancelled"

    # A client waiting for one JSON answer that gives up is left the same way.
    with pytest.raises(httpx.ReadTimeout):
        httpx.post(f"{url}/threads/{tid}/messages", json={"content": SLOW}, timeout=1)
    deadline = time.monotonic() + 6
    while turns(url, tid)[-1]["status"] == "running" and time.monotonic() < deadline:
        time.sleep(0.1)
    assert [t["status"] for t in turns(url, tid)] == ["cancelled", "cancelled"]


def test_a_client_that_reattaches_reads_on_where_it_was_and_the_answer_completes(serve) -> None:
    url = serve(detach_grace_seconds=5)
    tid = new_thread(url)
    with sse_message(url, tid, SLOW) as r:
        lines = r.iter_lines()
        ids = [line for line in _until_token(lines) if line.startswith("id:")]
    last = int(ids[-1].split(":")[1])
    beyond = httpx.get(f"{url}/threads/{tid}/events", headers={"Last-Event-ID": "9999"})
    assert beyond.status_code == 422 and "Last-Event-ID" in beyond.json()["detail"]
    with httpx.stream("GET", f"{url}/threads/{tid}/events", timeout=30) as other:
        before = _tokens(events_until_token(other.iter_lines()))  # another reads from the start

    with httpx.stream(
        "GET", f"{url}/threads/{tid}/events", headers={"Last-Event-ID": str(last)}, timeout=30
    ) as again:
        assert again.status_code == 200
        raw = list(again.iter_lines())
    resumed = [line for line in raw if line.startswith("id:")]
    assert int(resumed[0].split(":")[1]) == last + 1  # nothing twice, nothing lost
    pairs = list(parse_sse(raw))
    assert pairs[-1][0] == "done" and "error" not in [e for e, _ in pairs]
    answer = pairs[-1][1]["content"]
    assert answer.startswith(before) and "자세한 내용은 출처를 눌러 확인하세요." in answer
    assert turns(url, tid)[0]["status"] == "done"
    assert httpx.get(f"{url}/threads/{tid}/events").status_code == 409  # nothing running now


def _until_token(lines: Iterator[str]) -> list[str]:
    out = []
    for line in lines:
        out.append(line)
        if line.startswith("event: token"):
            out.append(next(lines))  # its data line
            return out
    raise AssertionError("no token")


def _tokens(pairs: list[tuple[str | None, Any]]) -> str:
    return "".join(d["content"] for e, d in pairs if e == "token")


def test_a_cancel_sent_to_another_server_process_stops_the_answer(
    postgres_url: str, tmp_path: Path
) -> None:
    env = server_env(tmp_path / "data", postgres_url)
    headers = make_key(env)
    with ServerProcess(env) as answering, ServerProcess(env) as other:
        tid = httpx.post(f"{answering.url}/threads", json={"agent": "qa"}, headers=headers)
        tid = tid.json()["id"]
        with sse_message(answering.url, tid, SLOW, headers=headers) as r:
            lines = r.iter_lines()
            events_until_token(lines)
            # Only the process that makes the answer has its events to stream…
            elsewhere = httpx.get(f"{other.url}/threads/{tid}/events", headers=headers)
            assert (
                elsewhere.status_code == 409 and "다른 서버 프로세스" in elsewhere.json()["detail"]
            )
            # …but any process stops it.
            stopped = httpx.post(f"{other.url}/threads/{tid}/cancel", headers=headers, timeout=30)
            rest = list(parse_sse(lines))
        assert stopped.status_code == 200 and stopped.json()["status"] == "cancelled"
        assert [e for e, _ in rest][-2:] == ["error", "done"]
        assert rest[-2][1]["code"] == "cancelled"
