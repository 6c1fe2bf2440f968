"""The meeting-room workers: find and book a room, and cancel one's own booking.

Booking takes the smallest room that seats everyone and has the equipment asked for, free of
weekly bookings and of other bookings in the database. The database decides: the rooms are
offered to it in order, its no-overlap rule refuses a taken one, and when it refuses them all
the answer says the room is already booked and offers the next free times that day.
"""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta

from dure.agents.tasks.bookings import Booking, BookingStore, store_url
from dure.agents.tasks.catalogue import Room, building
from dure.agents.tasks.schema import display_value
from dure.agents.tasks.workers.base import WorkerInput, WorkerResult, register_worker
from dure.korean.particles import particle
from dure.settings import Settings
from dure.sources import Source

STEP = timedelta(minutes=30)
MAX_ALTERNATIVES = 3


def store_for(settings: Settings) -> BookingStore:
    """The booking store on the configured database."""
    return BookingStore(store_url(settings.effective_database_url, settings.data_dir))


def _unheld(rooms: list[Room], start: datetime, end: datetime) -> list[Room]:
    """Rooms no weekly booking holds then."""
    weekly = building().recurring
    return [r for r in rooms if not any(w.room == r.id and w.overlaps(start, end) for w in weekly)]


def _free_rooms(
    rooms: list[Room], start: datetime, end: datetime, store: BookingStore
) -> list[Room]:
    return [r for r in _unheld(rooms, start, end) if store.is_free(r.id, start, end)]


def _when(start: datetime, length: timedelta) -> str:
    minutes = int(length.total_seconds() // 60)
    return (
        f"{display_value('datetime', start.isoformat())}부터 {display_value('duration', minutes)}"
    )


def _booked(room: Room, booking: Booking) -> WorkerResult:
    b = building()
    length = booking.end - booking.start
    return WorkerResult(
        summary=f"{b.building} {room.label} 예약 완료: {_when(booking.start, length)} "
        f"(예약번호 {booking.id})",
        data={
            "booking_id": booking.id,
            "room": room.model_dump(),
            "start": booking.start.isoformat(),
            "minutes": int(length.total_seconds() // 60),
        },
        sources=[
            Source(
                doc=f"{b.building} {room.label}",
                kind="tool",
                text=f"장비: {', '.join(room.equipment)}",
            )
        ],
    )


def alternatives(
    rooms: list[Room], start: datetime, length: timedelta, store: BookingStore
) -> list[str]:
    """Up to three later times that day when one of `rooms` is free (`14:30 3층 지리(6인)`)."""
    closes = building().closes
    found: list[str] = []
    moment = start + STEP
    while (
        len(found) < MAX_ALTERNATIVES
        and (moment + length).time() <= closes
        and moment.date() == start.date()
    ):
        if free := _free_rooms(rooms, moment, moment + length, store):
            found.append(f"{moment:%H:%M} {free[0].label}")
        moment += STEP
    return found


def reserve(
    store: BookingStore,
    rooms: list[Room],
    start: datetime,
    length: timedelta,
    party: int,
    owner: str,
    thread: str,
) -> WorkerResult:
    """Book the first of `rooms` the database accepts (no check before: its no-overlap rule
    decides, so nothing can slip in between), or say they are taken and offer other times."""
    for room in _unheld(rooms, start, start + length):
        if booking := store.book(room.id, start, start + length, party, owner, thread):
            return _booked(room, booking)
    later = alternatives(rooms, start, length, store)
    offer = f" 가능한 시간: {', '.join(later)}." if later else " 그날은 더 비는 시간이 없어요."
    taken = rooms[0].label if len(rooms) == 1 else "조건에 맞는 회의실"
    return WorkerResult(
        ok=False,
        summary=f"{_when(start, length)}에는 {particle(taken, '이', '가')} 이미 예약되어 있어요.{offer}",
        data={"alternatives": later, "taken": True},
    )


@register_worker("meeting_room_agent", "회의실 찾기·예약")
async def book_meeting_room(inp: WorkerInput) -> WorkerResult:
    """Book the best free room, or propose other times."""
    conv = inp.conversation
    b = building()
    start = datetime.fromisoformat(conv.slots["datetime"])
    length = timedelta(minutes=int(conv.value("duration_minutes") or 60))
    party = int(conv.slots["party_size"])
    wanted = list(conv.slots.get("equipment") or [])
    fitting = sorted(
        (r for r in b.rooms if r.capacity >= party and set(wanted) <= set(r.equipment)),
        key=lambda r: r.capacity,
    )
    if not fitting:
        return WorkerResult(
            ok=False,
            summary=f"{party}명이 쓸 수 있고 {', '.join(wanted) or '요청한'} 장비가 있는 회의실이 없어요.",
        )
    if (start + length).time() > b.closes or (start + length).date() != start.date():
        return WorkerResult(
            ok=False,
            summary=f"회의실은 {b.close}까지만 쓸 수 있어요. 시작 시간이나 사용 시간을 줄여 주세요.",
        )
    store = store_for(inp.settings)
    held = await asyncio.to_thread(store.held_by, inp.thread_id, start, start + length)
    if held and (room := next((r for r in fitting if r.id == held.room), None)):
        return _booked(room, held)  # this very step, run again
    return await asyncio.to_thread(
        reserve, store, fitting, start, length, party, inp.owner, inp.thread_id
    )


@register_worker("meeting_room_cancel_agent", "회의실 예약 취소")
async def cancel_meeting_room(inp: WorkerInput) -> WorkerResult:
    """Cancel the asker's booking that starts at the time given; another's is refused."""
    start = datetime.fromisoformat(inp.conversation.slots["datetime"])
    when = display_value("datetime", start.isoformat())
    store = store_for(inp.settings)
    found = await asyncio.to_thread(store.starting_at, start)
    mine = [b for b in found if b.owner == inp.owner]
    if not mine:
        reason = (
            "다른 사용자가 만든 예약이라 취소할 수 없어요." if found else "취소할 예약이 없어요."
        )
        return WorkerResult(ok=False, summary=f"{when}에 시작하는 회의실 예약 중 {reason}")
    rooms = {r.id: r.label for r in building().rooms}
    cancelled = [b for b in mine if await asyncio.to_thread(store.cancel, b.id, inp.owner)]
    listed = ", ".join(f"{rooms.get(b.room, b.room)} (예약번호 {b.id})" for b in cancelled)
    return WorkerResult(
        ok=bool(cancelled),
        summary=f"{when} 회의실 예약을 취소했어요: {listed}"
        if cancelled
        else f"{when} 예약은 이미 취소되었어요.",
        data={"cancelled": [b.id for b in cancelled]},
    )
