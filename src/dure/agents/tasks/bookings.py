"""Meeting-room bookings in the database Dure already uses (`DURE_DATABASE_URL`).

SQLite by default, Postgres at scale. The database itself refuses two live bookings of one
room that overlap — a trigger on SQLite (whose writes are serialised, so the check and the
insert are one step), an exclusion constraint on Postgres (`btree_gist`) — so two people, two
server workers or two processes can never both win the same slot. A cancelled booking keeps
its row (`cancelled_at`) and stops blocking. Only the owner (an API key, or the local user)
may cancel.
"""

from __future__ import annotations

import sqlite3
import threading
import uuid
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from dure.korean.time import as_seoul
from dure.persistence import kind, sqlite_path

_SQLITE = [
    """CREATE TABLE IF NOT EXISTS dure_bookings (
    id TEXT PRIMARY KEY, room TEXT NOT NULL, starts TEXT NOT NULL, ends TEXT NOT NULL,
    party INTEGER NOT NULL, owner TEXT NOT NULL, thread TEXT NOT NULL, created_at TEXT NOT NULL,
    cancelled_at TEXT)""",
    """CREATE TRIGGER IF NOT EXISTS dure_bookings_no_overlap BEFORE INSERT ON dure_bookings
    WHEN NEW.cancelled_at IS NULL AND EXISTS (
        SELECT 1 FROM dure_bookings WHERE room = NEW.room AND cancelled_at IS NULL
        AND starts < NEW.ends AND NEW.starts < ends)
    BEGIN SELECT RAISE(ABORT, 'dure_bookings_no_overlap'); END""",
]
_POSTGRES = [
    "CREATE EXTENSION IF NOT EXISTS btree_gist",
    """CREATE TABLE IF NOT EXISTS dure_bookings (
    id TEXT PRIMARY KEY, room TEXT NOT NULL, starts TIMESTAMPTZ NOT NULL,
    ends TIMESTAMPTZ NOT NULL, party INTEGER NOT NULL, owner TEXT NOT NULL, thread TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL, cancelled_at TIMESTAMPTZ,
    CONSTRAINT dure_bookings_no_overlap EXCLUDE USING gist
        (room WITH =, tstzrange(starts, ends) WITH &&) WHERE (cancelled_at IS NULL))""",
]
# Any fixed number: the advisory lock that serialises the schema setup of concurrent processes.
_SETUP_LOCK = 0x64757266
_COLUMNS = "id, room, starts, ends, party, owner, thread"


@dataclass(frozen=True)
class Booking:
    """One live booking."""

    id: str
    room: str
    start: datetime
    end: datetime
    party: int
    owner: str
    thread: str


def _iso(moment: datetime) -> str:
    # One fixed format in one zone, so SQLite compares the text as it would the times.
    return as_seoul(moment).isoformat(timespec="seconds")


def _booking(row: tuple[Any, ...]) -> Booking:
    bid, room, start, end, party, owner, thread = row
    start, end = (
        as_seoul(v if isinstance(v, datetime) else datetime.fromisoformat(v)) for v in (start, end)
    )
    return Booking(bid, room, start, end, int(party), owner, thread)


class BookingStore:
    """Bookings on one database URL (`sqlite:///PATH` or `postgresql://…`)."""

    _ready: set[str] = set()
    _ready_lock = threading.Lock()

    def __init__(self, url: str) -> None:
        self.url = url
        self.postgres = kind(url) == "postgres"

    @contextmanager
    def _connect(self) -> Iterator[Any]:
        if self.postgres:
            import psycopg

            with psycopg.connect(self.url, autocommit=True) as conn:
                self._setup(conn)
                yield conn
            return
        path = sqlite_path(self.url)
        path.parent.mkdir(parents=True, exist_ok=True)
        with closing(sqlite3.connect(path, timeout=30, isolation_level=None)) as conn:
            self._setup(conn)
            yield conn

    def _setup(self, conn: Any) -> None:
        with self._ready_lock:
            if self.url in self._ready:
                return
            if self.postgres:
                conn.execute("SELECT pg_advisory_lock(%s)", (_SETUP_LOCK,))
                try:
                    for statement in _POSTGRES:
                        conn.execute(statement)
                finally:
                    conn.execute("SELECT pg_advisory_unlock(%s)", (_SETUP_LOCK,))
            else:
                for statement in _SQLITE:
                    conn.execute(statement)
            self._ready.add(self.url)

    def _sql(self, sql: str) -> str:
        return sql.replace("?", "%s") if self.postgres else sql

    def _rows(self, sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        with self._connect() as conn:
            return list(conn.execute(self._sql(sql), params).fetchall())

    def _params(self, *moments: datetime) -> tuple[Any, ...]:
        return tuple(as_seoul(m) if self.postgres else _iso(m) for m in moments)

    def is_free(self, room: str, start: datetime, end: datetime) -> bool:
        """No live booking of `room` meets [start, end)."""
        sql = (
            "SELECT 1 FROM dure_bookings WHERE room = ? AND cancelled_at IS NULL"
            " AND starts < ? AND ? < ends LIMIT 1"
        )
        return not self._rows(sql, (room, *self._params(end, start)))

    def held_by(self, thread: str, start: datetime, end: datetime) -> Booking | None:
        """The live booking this thread already holds for exactly [start, end), if any."""
        sql = (
            f"SELECT {_COLUMNS} FROM dure_bookings WHERE thread = ? AND cancelled_at IS NULL"
            " AND starts = ? AND ends = ?"
        )
        rows = self._rows(sql, (thread, *self._params(start, end)))
        return _booking(rows[0]) if rows else None

    def starting_at(self, start: datetime) -> list[Booking]:
        """Live bookings (of anyone) that start at `start`."""
        sql = f"SELECT {_COLUMNS} FROM dure_bookings WHERE cancelled_at IS NULL AND starts = ?"
        return [_booking(r) for r in self._rows(sql, self._params(start))]

    def book(
        self, room: str, start: datetime, end: datetime, party: int, owner: str, thread: str
    ) -> Booking | None:
        """The new booking, or None when the database refused it (the slot is taken)."""
        booking = Booking(
            f"MR-{start:%m%d}-{room}-{start:%H%M}-{uuid.uuid4().hex[:4]}",
            room,
            as_seoul(start),
            as_seoul(end),
            party,
            owner,
            thread,
        )
        sql = f"INSERT INTO dure_bookings ({_COLUMNS}, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
        now = datetime.now().astimezone()
        params = (booking.id, room, *self._params(start, end), party, owner, thread)
        try:
            with self._connect() as conn:
                conn.execute(self._sql(sql), (*params, *self._params(now)))
        except Exception as e:
            if self._overlap(e):
                return None
            raise
        return booking

    def _overlap(self, error: Exception) -> bool:
        """The database's no-overlap rule refused a write."""
        if self.postgres:
            import psycopg

            return isinstance(error, psycopg.errors.ExclusionViolation)
        return isinstance(error, sqlite3.IntegrityError) and "no_overlap" in str(error)

    def cancel(self, booking_id: str, owner: str) -> bool:
        """Cancel a live booking of `owner`; False when there is none (or it is another's)."""
        sql = (
            "UPDATE dure_bookings SET cancelled_at = ?"
            " WHERE id = ? AND owner = ? AND cancelled_at IS NULL"
        )
        with self._connect() as conn:
            cur = conn.execute(
                self._sql(sql), (*self._params(datetime.now().astimezone()), booking_id, owner)
            )
            return bool(cur.rowcount)


def store_url(database_url: str, data_dir: Path) -> str:
    """Where bookings live: the configured database, or a SQLite file when threads are kept
    in memory (bookings must outlive the process)."""
    if kind(database_url) == "memory":
        return f"sqlite:///{data_dir / 'tasks' / 'bookings.sqlite'}"
    return database_url
