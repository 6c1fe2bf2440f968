"""Meeting-room bookings in the database: the no-overlap rule holds on SQLite and on the embedded
Postgres, under 20 concurrent bookings from several processes; cancelling is confirmed, and only
the owner may cancel."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from test_tasks_agent import agent, done, questions, state_of, turn

from dure.agents.tasks.bookings import BookingStore
from dure.settings import Settings
from dure.testing import ScriptedChatModel

START = datetime.fromisoformat("2025-03-06T14:00:00+09:00")  # a Thursday: 3B has no weekly slot
HOUR = timedelta(hours=1)
PROCESSES, THREADS = 4, 5

# One process of the race (argv: url, go-file, process number, threads): each thread waits for
# the go-file, then books room 3B at START through the worker's own `reserve`.
RACER = """
import json, os, sys, threading, time
from datetime import datetime, timedelta
from dure.agents.tasks.bookings import BookingStore
from dure.agents.tasks.catalogue import building
from dure.agents.tasks.workers.meeting import reserve

url, go, proc, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
store = BookingStore(url)
book, refused = store.book, []

def counted(*args):  # every booking the database itself refused
    booking = book(*args)
    if booking is None:
        refused.append(args)
    return booking

store.book = counted
start = datetime.fromisoformat("2025-03-06T14:00:00+09:00")
store.is_free("3B", start, start)  # schema ready before the race
room = next(r for r in building().rooms if r.id == "3B")
results = [None] * n

def one(i):
    while not os.path.exists(go):
        time.sleep(0.001)
    try:
        r = reserve(store, [room], start, timedelta(hours=1), 4, f"key-{proc}-{i}", f"t-{proc}-{i}")
    except Exception as e:  # said in the report, not lost on the racer's stderr
        results[i] = {"ok": False, "summary": "", "data": None, "error": repr(e)}
        return
    results[i] = {"ok": r.ok, "summary": r.summary, "data": r.data}

threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
for t in threads:
    t.start()
print("ready", flush=True)
for t in threads:
    t.join()
print(json.dumps({"results": results, "refused": len(refused)}, ensure_ascii=False))
"""


def sqlite_url(settings: Settings) -> str:
    return f"sqlite:///{settings.data_dir / 'dure.sqlite'}"


@pytest.fixture(params=["sqlite", "postgres"])
def url(request: pytest.FixtureRequest, settings: Settings) -> str:
    if request.param == "sqlite":
        return sqlite_url(settings)
    return str(request.getfixturevalue("postgres_url"))


def race(url: str, tmp_path: Path) -> tuple[list[dict[str, object]], int]:
    go = tmp_path / "go"
    racers = [
        subprocess.Popen(
            [sys.executable, "-c", RACER, url, str(go), str(p), str(THREADS)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for p in range(PROCESSES)
    ]
    for racer in racers:
        assert racer.stdout is not None
        assert racer.stdout.readline().strip() == "ready", racer.stderr
    time.sleep(0.2)  # every thread is polling for the go-file
    go.touch()
    results: list[dict[str, object]] = []
    refused = 0
    for racer in racers:
        out, err = racer.communicate(timeout=120)
        assert racer.returncode == 0, err
        report = json.loads(out.strip().splitlines()[-1])
        results += report["results"]
        refused += report["refused"]
    return results, refused


def check_one_winner(url: str, race: tuple[list[dict[str, object]], int]) -> None:
    results, refused = race
    assert len(results) == PROCESSES * THREADS == 20
    assert not [r["error"] for r in results if r.get("error")]  # every thread got an answer
    assert refused == 19  # each loser was turned away by the database's rule, not a check
    winners = [r for r in results if r["ok"]]
    assert len(winners) == 1, [r["summary"] for r in winners]
    for lost in (r for r in results if not r["ok"]):
        assert "이미 예약되어 있어요" in str(lost["summary"])
        data = lost["data"]
        assert isinstance(data, dict) and data["alternatives"]
        assert str(data["alternatives"][0]).startswith("15:00")
    store = BookingStore(url)
    assert len(store.starting_at(START)) == 1


def test_concurrent_booking_sqlite_has_one_winner(settings: Settings, tmp_path: Path) -> None:
    url = sqlite_url(settings)
    check_one_winner(url, race(url, tmp_path))


def test_concurrent_booking_postgres_has_one_winner(postgres_url: str, tmp_path: Path) -> None:
    check_one_winner(postgres_url, race(postgres_url, tmp_path))


def test_the_database_itself_refuses_an_overlap(url: str) -> None:
    store = BookingStore(url)
    assert store.book("3B", START, START + HOUR, 4, "a", "t1")
    half = START + HOUR / 2
    assert store.book("3B", half, half + HOUR, 4, "b", "t2") is None  # no check before: the rule
    assert store.book("3A", half, half + HOUR, 4, "b", "t2")  # another room
    assert store.book("3B", START + HOUR, START + 2 * HOUR, 4, "b", "t2")  # back to back


def test_only_the_owner_cancels_and_a_cancelled_slot_is_free_again(url: str) -> None:
    store = BookingStore(url)
    booking = store.book("5A", START, START + HOUR, 6, "key-a", "t1")
    assert booking is not None
    assert store.held_by("t1", START, START + HOUR) == booking
    assert not store.cancel(booking.id, "key-b")
    assert not store.is_free("5A", START, START + HOUR)
    assert store.cancel(booking.id, "key-a")
    assert not store.cancel(booking.id, "key-a")  # once
    assert store.is_free("5A", START, START + HOUR)
    assert store.starting_at(START) == []
    assert store.book("5A", START, START + HOUR, 6, "key-b", "t2")


async def test_cancelling_ones_own_booking_is_confirmed_first(settings: Settings) -> None:
    async with agent(settings, ScriptedChatModel([])) as ctx:
        await turn(ctx, "오늘 오후 3시 회의실 4명")
        await turn(ctx, "네")
        asked = await turn(ctx, "취소할게")  # the booking of this conversation
        assert questions(asked) == [
            "회의실 예약 취소: 3월 5일(수) 오후 3시. "
            "이 시간에 시작하는 내 회의실 예약을 취소할까요? (네/아니요)"
        ]
        start = datetime.fromisoformat("2025-03-05T15:00:00+09:00")
        store = BookingStore(settings.effective_database_url)
        assert store.starting_at(start)  # nothing cancelled before the yes
        done_events = await turn(ctx, "네")
        state = await state_of(ctx)
    cancelled = state["results"]["meeting_room_cancel_agent"]
    assert cancelled["ok"] and cancelled["summary"] in done(done_events).content
    assert store.starting_at(start) == []


async def test_another_keys_booking_cannot_be_cancelled(settings: Settings) -> None:
    async with agent(settings, ScriptedChatModel([]), owner="key-a") as ctx:
        await turn(ctx, "오늘 오후 3시 회의실 4명")
        await turn(ctx, "네")
    async with agent(settings, ScriptedChatModel([]), owner="key-b") as ctx:
        await turn(ctx, "3시 회의실 예약 취소해줘", thread="other")
        refused = await turn(ctx, "네", thread="other")
        state = await state_of(ctx, "other")
    result = state["results"]["meeting_room_cancel_agent"]
    assert not result["ok"] and "다른 사용자가 만든 예약" in result["summary"]
    assert result["summary"] in done(refused).content
    start = datetime.fromisoformat("2025-03-05T15:00:00+09:00")
    assert BookingStore(settings.effective_database_url).starting_at(start)


async def test_declining_the_cancellation_keeps_the_booking(settings: Settings) -> None:
    async with agent(settings, ScriptedChatModel([])) as ctx:
        await turn(ctx, "오늘 오후 3시 회의실 4명")
        await turn(ctx, "네")
        await turn(ctx, "3시 회의실 예약 취소해줘")
        events = await turn(ctx, "아니요")
    assert done(events).content == "예약을 그대로 두었어요."
    start = datetime.fromisoformat("2025-03-05T15:00:00+09:00")
    assert BookingStore(settings.effective_database_url).starting_at(start)


async def test_a_booking_turn_on_postgres_books_in_postgres(
    settings: Settings, postgres_url: str
) -> None:
    settings.database_url = postgres_url  # threads and bookings: one DURE_DATABASE_URL
    async with agent(settings, ScriptedChatModel([])) as ctx:
        await turn(ctx, "오늘 오후 3시 회의실 4명")
        assert "예약 완료" in done(await turn(ctx, "네")).content
    start = datetime.fromisoformat("2025-03-05T15:00:00+09:00")
    (booking,) = BookingStore(postgres_url).starting_at(start)
    assert booking.owner == "local" and booking.party == 4
