"""Checkpointers by URL: `memory`, `sqlite:///PATH` (the default) or `postgresql://...`.

Threads live in the checkpointer, so a conversation survives a process restart on SQLite and
is shared by every server worker on Postgres.
"""

from __future__ import annotations

import sqlite3
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver

from dure.errors import DureError

if TYPE_CHECKING:
    from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver
    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver


class DatabaseURLError(DureError, ValueError):
    """A database URL Dure cannot use."""


def sqlite_path(url: str) -> Path:
    """The file of a `sqlite:///PATH` URL."""
    return Path(url.removeprefix("sqlite:///"))


def kind(url: str) -> str:
    """`memory`, `sqlite` or `postgres`."""
    if url == "memory":
        return "memory"
    if url.startswith("sqlite:///"):
        return "sqlite"
    if url.startswith(("postgresql://", "postgres://")):
        return "postgres"
    raise DatabaseURLError(
        f"지원하지 않는 데이터베이스 URL입니다: {url!r} (memory, sqlite:///경로, postgresql://...)"
    )


class DatabaseUnavailableError(DureError):
    """The configured database cannot be opened (unreachable, refused, not a file)."""


@asynccontextmanager
async def open_checkpointer(url: str) -> AsyncIterator[BaseCheckpointSaver]:
    """An async checkpointer for `url`, tables created, closed on exit.

    Failing to open it raises `DatabaseUnavailableError` (one line); errors raised by the
    caller's own code inside the block pass through unchanged.
    """
    k = kind(url)
    if k == "memory":
        yield InMemorySaver()
        return
    async with AsyncExitStack() as stack:
        try:
            saver = await stack.enter_async_context(_open(k, url))
            await saver.setup()
        except _connect_errors(k) as e:
            where = sqlite_path(url) if k == "sqlite" else "postgres"
            reason = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            raise DatabaseUnavailableError(
                f"데이터베이스를 열 수 없습니다 ({where}): {reason}"
            ) from e
        yield saver


@asynccontextmanager
async def _open(k: str, url: str) -> AsyncIterator[AsyncSqliteSaver | AsyncPostgresSaver]:
    if k == "sqlite":
        from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

        path = sqlite_path(url)
        path.parent.mkdir(parents=True, exist_ok=True)
        # Fail here, synchronously: a failed aiosqlite connect leaves its worker thread behind.
        sqlite3.connect(path).close()
        async with AsyncSqliteSaver.from_conn_string(str(path)) as saver:
            yield saver
    else:
        from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver

        async with AsyncPostgresSaver.from_conn_string(url) as saver:
            yield saver


def _connect_errors(k: str) -> tuple[type[Exception], ...]:
    if k == "postgres":
        import psycopg

        return (OSError, psycopg.Error)
    return (OSError, sqlite3.Error)


def check_database(url: str, timeout: float = 5.0) -> None:
    """Raise with a one-line reason when the database cannot be reached."""
    k = kind(url)
    if k == "sqlite":
        path = sqlite_path(url)
        path.parent.mkdir(parents=True, exist_ok=True)
        sqlite3.connect(path, timeout=timeout).execute("SELECT 1").close()
    elif k == "postgres":
        import psycopg

        with psycopg.connect(url, connect_timeout=int(timeout)) as conn:
            conn.execute("SELECT 1")
