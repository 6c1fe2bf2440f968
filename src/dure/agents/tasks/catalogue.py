"""The fictional data the workers use (package data): restaurants and meeting rooms."""

from __future__ import annotations

import json
from datetime import datetime, time
from functools import lru_cache
from importlib.resources import files
from typing import Any

from pydantic import BaseModel, Field

from dure.korean.time import WEEKDAYS


def _load(name: str) -> Any:
    return json.loads(files("dure").joinpath(f"data/{name}").read_text(encoding="utf-8"))


def _clock(text: str) -> time:
    hour, minute = map(int, text.split(":"))
    return time(hour, minute)


def weekday_name(moment: datetime) -> str:
    """`"금"` for a Friday."""
    return WEEKDAYS[moment.weekday()]


class Menu(BaseModel):
    """A dish and its price (won)."""

    name: str
    price: int


class Restaurant(BaseModel):
    """One restaurant of the fictional catalogue."""

    id: str
    name: str
    area: str
    station: str
    cuisine: str
    menus: list[Menu]
    max_party: int
    open: str
    close: str
    break_time: str | None = Field(None, alias="break")
    closed_days: list[str] = Field(default_factory=list)
    walk_minutes: int
    rating: float
    tags: list[str] = Field(default_factory=list)

    @property
    def lowest_price(self) -> int:
        """The cheapest dish: what one person pays at least."""
        return min(m.price for m in self.menus)

    @property
    def highest_price(self) -> int:
        """The dearest dish."""
        return max(m.price for m in self.menus)

    def is_open(self, moment: datetime) -> bool:
        """Open for a meal starting at `moment` (closed days, hours, break time)."""
        if weekday_name(moment) in self.closed_days:
            return False
        at = moment.time().replace(tzinfo=None)
        if not _clock(self.open) <= at < _clock(self.close):
            return False
        if self.break_time:
            start, end = (_clock(t) for t in self.break_time.split("-"))
            return not start <= at < end
        return True


class Room(BaseModel):
    """A meeting room."""

    id: str
    name: str
    floor: int
    capacity: int
    equipment: list[str]

    @property
    def label(self) -> str:
        """`5층 설악(8인)`."""
        return f"{self.floor}층 {self.name}({self.capacity}인)"


class Recurring(BaseModel):
    """A weekly booking that always holds a room."""

    room: str
    weekday: str
    start: str
    end: str
    title: str

    def overlaps(self, start: datetime, end: datetime) -> bool:
        """True when this weekly slot meets [start, end) on the same day."""
        if weekday_name(start) != self.weekday:
            return False
        return _clock(self.start) < end.time() and start.time() < _clock(self.end)


class Building(BaseModel):
    """The office building, its opening hours, rooms and weekly bookings."""

    building: str
    open: str
    close: str
    rooms: list[Room]
    recurring: list[Recurring]

    @property
    def opens(self) -> time:
        """Opening time."""
        return _clock(self.open)

    @property
    def closes(self) -> time:
        """Closing time."""
        return _clock(self.close)


@lru_cache(maxsize=1)
def restaurants() -> list[Restaurant]:
    """The restaurant catalogue."""
    return [Restaurant.model_validate(r) for r in _load("restaurants.json")["restaurants"]]


@lru_cache(maxsize=1)
def areas() -> list[str]:
    """Areas the catalogue covers, in catalogue order."""
    return list(dict.fromkeys(r.area for r in restaurants()))


@lru_cache(maxsize=1)
def building() -> Building:
    """The meeting-room building."""
    return Building.model_validate(_load("meeting_rooms.json"))
