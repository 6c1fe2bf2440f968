"""The second intent's worker: find and book a meeting room (the schema is general).

The smallest room that seats everyone and has the equipment asked for, free of weekly bookings
and of other bookings in the store. When none is free it proposes the next free times that day.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from dure.agents.tasks.bookings import BookingStore
from dure.agents.tasks.catalogue import Room, building
from dure.agents.tasks.schema import display_value
from dure.agents.tasks.workers.base import WorkerInput, WorkerResult, register_worker
from dure.sources import Source

STEP = timedelta(minutes=30)
MAX_ALTERNATIVES = 3


def store_for(inp: WorkerInput) -> BookingStore:
    """The booking store in the data directory."""
    return BookingStore(inp.settings.data_dir / "tasks" / "bookings.sqlite")


def _free_rooms(
    rooms: list[Room], start: datetime, end: datetime, store: BookingStore
) -> list[Room]:
    weekly = building().recurring
    return [
        r
        for r in rooms
        if not any(w.room == r.id and w.overlaps(start, end) for w in weekly)
        and store.is_free(r.id, start, end)
    ]


def _booked(room: Room, booking: str, when: str, start: datetime, minutes: int) -> WorkerResult:
    b = building()
    return WorkerResult(
        summary=f"{b.building} {room.label} 예약 완료: {when} (예약번호 {booking})",
        data={
            "booking_id": booking,
            "room": room.model_dump(),
            "start": start.isoformat(),
            "minutes": minutes,
        },
        sources=[
            Source(
                doc=f"{b.building} {room.label}",
                kind="tool",
                text=f"장비: {', '.join(room.equipment)}",
            )
        ],
    )


@register_worker("meeting_room_agent", "회의실 찾기·예약")
async def book_meeting_room(inp: WorkerInput) -> WorkerResult:
    """Book the best free room, or propose other times."""
    conv = inp.conversation
    b = building()
    start = datetime.fromisoformat(conv.slots["datetime"])
    minutes = int(conv.value("duration_minutes") or 60)
    length = timedelta(minutes=minutes)
    party = int(conv.slots["party_size"])
    wanted = list(conv.slots.get("equipment") or [])
    fitting = sorted(
        (r for r in b.rooms if r.capacity >= party and set(wanted) <= set(r.equipment)),
        key=lambda r: r.capacity,
    )
    when = f"{display_value('datetime', conv.slots['datetime'])}부터 {display_value('duration', minutes)}"
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
    store = store_for(inp)
    held = store.held_by(inp.thread_id, start, start + length)  # this very step, run again
    if held and (room := next((r for r in fitting if r.id == held[1]), None)):
        return _booked(room, held[0], when, start, minutes)
    for room in _free_rooms(fitting, start, start + length, store):
        if booking := store.book(room.id, start, start + length, party, inp.thread_id):
            return _booked(room, booking, when, start, minutes)
    alternatives: list[str] = []
    moment = start + STEP
    while (
        len(alternatives) < MAX_ALTERNATIVES
        and (moment + length).time() <= b.closes
        and moment.date() == start.date()
    ):
        free = _free_rooms(fitting, moment, moment + length, store)
        if free:
            alternatives.append(f"{moment:%H:%M} {free[0].label}")
        moment += STEP
    offer = f" 가능한 시간: {', '.join(alternatives)}." if alternatives else ""
    return WorkerResult(
        ok=False,
        summary=f"{when}에는 조건에 맞는 빈 회의실이 없어요.{offer}",
        data={"alternatives": alternatives},
    )
