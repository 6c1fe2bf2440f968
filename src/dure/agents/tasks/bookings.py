"""Meeting-room bookings, kept in a SQLite file in the data directory (so they are real:
two conversations cannot book the same room at the same time)."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from datetime import datetime
from pathlib import Path

_SCHEMA = """CREATE TABLE IF NOT EXISTS bookings (
    id TEXT PRIMARY KEY, room TEXT NOT NULL, start TEXT NOT NULL, end TEXT NOT NULL,
    party INTEGER NOT NULL, thread TEXT NOT NULL, created TEXT NOT NULL)"""


class BookingStore:
    """Bookings in one SQLite file; times are ISO strings in Asia/Seoul (so they sort)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def _connect(self) -> sqlite3.Connection:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self.path, timeout=10, isolation_level=None)
        conn.execute(_SCHEMA)
        return conn

    @staticmethod
    def _overlapping(conn: sqlite3.Connection, room: str, start: datetime, end: datetime) -> bool:
        row = conn.execute(
            "SELECT 1 FROM bookings WHERE room = ? AND start < ? AND ? < end LIMIT 1",
            (room, end.isoformat(), start.isoformat()),
        ).fetchone()
        return row is not None

    def is_free(self, room: str, start: datetime, end: datetime) -> bool:
        """No booking of `room` meets [start, end)."""
        with closing(self._connect()) as conn:
            return not self._overlapping(conn, room, start, end)

    def held_by(self, thread: str, start: datetime, end: datetime) -> tuple[str, str] | None:
        """(booking id, room) this thread already holds for exactly [start, end), if any."""
        with closing(self._connect()) as conn:
            row = conn.execute(
                "SELECT id, room FROM bookings WHERE thread = ? AND start = ? AND end = ?",
                (thread, start.isoformat(), end.isoformat()),
            ).fetchone()
        return (row[0], row[1]) if row else None

    def book(
        self, room: str, start: datetime, end: datetime, party: int, thread: str
    ) -> str | None:
        """Book atomically: the booking id, or None when the room was taken meanwhile."""
        booking_id = f"MR-{start:%m%d}-{room}-{start:%H%M}"
        with closing(self._connect()) as conn:
            conn.execute("BEGIN IMMEDIATE")
            try:
                if self._overlapping(conn, room, start, end):
                    conn.execute("ROLLBACK")
                    return None
                conn.execute(
                    "INSERT INTO bookings VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (
                        booking_id,
                        room,
                        start.isoformat(),
                        end.isoformat(),
                        party,
                        thread,
                        datetime.now().isoformat(),
                    ),
                )
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
        return booking_id
