"""The server's own tables (keys, threads, turns, documents, rate counters) beside the checkpointer.

Both live in one database: a SQLite file in the data directory by default, or Postgres when
`database_url` says so (then every worker shares them). SQL is written once with `?`
placeholders; Postgres gets `%s`. The schema is a list of migrations recorded in a table and
applied under a lock, so workers starting together do not race.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver

from dure.persistence import DatabaseUnavailableError, kind, open_checkpointer, sqlite_path

Row = dict[str, Any]

_TABLES = """
CREATE TABLE IF NOT EXISTS dure_api_keys (
    hash TEXT PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    created_at DOUBLE PRECISION NOT NULL,
    revoked_at DOUBLE PRECISION
);
CREATE TABLE IF NOT EXISTS dure_threads (
    id TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    alias TEXT,
    agent TEXT NOT NULL,
    title TEXT NOT NULL,
    options TEXT NOT NULL,
    created_at DOUBLE PRECISION NOT NULL,
    updated_at DOUBLE PRECISION NOT NULL
);
CREATE INDEX IF NOT EXISTS dure_threads_owner ON dure_threads (owner, updated_at);
CREATE UNIQUE INDEX IF NOT EXISTS dure_threads_alias ON dure_threads (owner, alias);
CREATE TABLE IF NOT EXISTS dure_turns (
    id TEXT PRIMARY KEY,
    thread_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    status TEXT NOT NULL,
    message TEXT NOT NULL,
    answer TEXT,
    sources TEXT,
    events TEXT,
    waiting INTEGER NOT NULL DEFAULT 0,
    checkpoint_before TEXT,
    checkpoint_after TEXT,
    kept_writes TEXT,
    worker TEXT NOT NULL,
    started_at DOUBLE PRECISION NOT NULL,
    heartbeat_at DOUBLE PRECISION NOT NULL,
    finished_at DOUBLE PRECISION,
    UNIQUE (thread_id, seq)
);
CREATE UNIQUE INDEX IF NOT EXISTS dure_turns_one_running ON dure_turns (thread_id)
    WHERE status = 'running';
CREATE TABLE IF NOT EXISTS dure_documents (
    id TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    name TEXT NOT NULL,
    kind TEXT NOT NULL,
    path TEXT NOT NULL,
    size INTEGER NOT NULL,
    collection TEXT,
    info TEXT NOT NULL,
    created_at DOUBLE PRECISION NOT NULL
);
CREATE INDEX IF NOT EXISTS dure_documents_owner ON dure_documents (owner, created_at);
CREATE TABLE IF NOT EXISTS dure_rate (
    owner TEXT NOT NULL,
    minute BIGINT NOT NULL,
    n INTEGER NOT NULL,
    PRIMARY KEY (owner, minute)
);
CREATE TABLE IF NOT EXISTS dure_conversations (
    owner TEXT NOT NULL,
    digest TEXT NOT NULL,
    thread_id TEXT NOT NULL,
    created_at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (owner, digest)
)
"""

#: Schema versions in order; each is a list of statements. Append, never edit.
MIGRATIONS: list[list[str]] = [
    [s.strip() for s in _TABLES.split(";") if s.strip()],
    # LangGraph clients keep their own metadata on a thread (JSON); a thread they create has
    # no agent (`agent` is '') until its first run.
    ["ALTER TABLE dure_threads ADD COLUMN metadata TEXT NOT NULL DEFAULT '{}'"],
    # A request to stop a running turn, for the worker that runs it to see.
    ["ALTER TABLE dure_turns ADD COLUMN stop_requested INTEGER NOT NULL DEFAULT 0"],
]

# Any fixed number: the Postgres advisory lock that serialises migrations across workers.
_MIGRATION_LOCK = 0x64757265


class IntegrityError(Exception):
    """A uniqueness constraint refused a write (same meaning on both backends)."""


class Database:
    """A tiny async façade over SQLite (aiosqlite) or Postgres (a psycopg pool)."""

    def __init__(self, backend: str, conn: Any) -> None:
        self.backend = backend
        self._conn = conn
        self._lock = asyncio.Lock()  # one aiosqlite connection: one statement at a time

    @property
    def pool(self) -> Any:
        """The psycopg pool (Postgres only)."""
        return self._conn

    def _sql(self, sql: str) -> str:
        return sql.replace("?", "%s") if self.backend == "postgres" else sql

    async def _run(self, sql: str, params: Sequence[Any], fetch: bool) -> tuple[int, list[Row]]:
        """Run one statement: (rows changed, rows returned); uniqueness errors as ours."""
        if self.backend == "postgres":
            import psycopg

            try:
                async with self._conn.connection() as conn:
                    cur = await conn.execute(self._sql(sql), params)
                    return cur.rowcount, list(await cur.fetchall()) if fetch else []
            except psycopg.errors.UniqueViolation as e:
                raise IntegrityError(str(e)) from e
        async with self._lock:
            try:
                cur = await self._conn.execute(sql, params)
                rows = [dict(r) for r in await cur.fetchall()] if fetch else []
            except sqlite3.IntegrityError as e:
                raise IntegrityError(str(e)) from e
            return cur.rowcount, rows

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run one statement; the number of rows it changed."""
        return (await self._run(sql, params, fetch=False))[0]

    async def fetchall(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        """All rows of a query (or of a statement's RETURNING), as dicts."""
        return (await self._run(sql, params, fetch=True))[1]

    async def fetchone(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        """The first row of a query, or None."""
        rows = await self.fetchall(sql, params)
        return rows[0] if rows else None

    async def ping(self) -> None:
        """Raise when the database does not answer."""
        await self.fetchone("SELECT 1 AS ok")

    async def migrate(self) -> None:
        """Apply the migrations this database has not seen yet."""
        if self.backend == "postgres":
            async with self._conn.connection() as conn:
                await conn.execute("SELECT pg_advisory_lock(%s)", (_MIGRATION_LOCK,))
                try:
                    await self._apply(lambda s, p=(): conn.execute(self._sql(s), p))
                finally:
                    await conn.execute("SELECT pg_advisory_unlock(%s)", (_MIGRATION_LOCK,))
            return
        async with self._lock:
            await self._conn.execute("BEGIN IMMEDIATE")  # the file lock orders other workers
            try:
                await self._apply(self._conn.execute)
            except BaseException:
                await self._conn.execute("ROLLBACK")
                raise
            await self._conn.execute("COMMIT")

    async def _apply(self, run: Any) -> None:
        await run("CREATE TABLE IF NOT EXISTS dure_schema (version INTEGER NOT NULL)")
        cur = await run("SELECT MAX(version) AS v FROM dure_schema")
        row = await cur.fetchone()
        done = (row["v"] if isinstance(row, dict) else row[0]) or 0
        for version, statements in enumerate(MIGRATIONS, start=1):
            if version <= done:
                continue
            for statement in statements:
                await run(statement)
            await run("INSERT INTO dure_schema (version) VALUES (?)", (version,))


@dataclass
class Storage:
    """The server tables and the checkpointer, opened together on one database URL."""

    db: Database
    checkpointer: BaseCheckpointSaver
    url: str

    def saver_for_turn(self) -> BaseCheckpointSaver:
        """A checkpointer for one turn. On Postgres a fresh saver over the shared pool: each
        saver serialises its own calls with a lock, so one per turn lets turns run in parallel."""
        if self.db.backend != "postgres":
            return self.checkpointer
        from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver

        return AsyncPostgresSaver(self.db.pool)


async def _open_pool(url: str, pool_size: int) -> Any:
    """An open psycopg pool, or `DatabaseUnavailableError` in one line (not a 30 s hang)."""
    import psycopg
    from psycopg.rows import dict_row
    from psycopg_pool import AsyncConnectionPool, PoolTimeout

    pool = AsyncConnectionPool(
        url,
        min_size=1,
        max_size=pool_size,
        open=False,
        kwargs={"autocommit": True, "prepare_threshold": 0, "row_factory": dict_row},
    )
    try:
        await pool.open(wait=True, timeout=15)
    except (PoolTimeout, psycopg.Error, OSError) as e:
        await pool.close()
        raise DatabaseUnavailableError(f"데이터베이스를 열 수 없습니다 (postgres): {e}") from e
    return pool


@asynccontextmanager
async def open_storage(url: str, pool_size: int = 10) -> AsyncIterator[Storage]:
    """Open the database at `url` (memory, sqlite:///PATH, postgresql://...), schema applied."""
    backend = kind(url)
    if backend == "postgres":
        from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver

        async with await _open_pool(url, pool_size) as pool:
            db = Database("postgres", pool)
            pg_saver = AsyncPostgresSaver(pool)
            async with pool.connection() as conn:
                # The checkpointer's own setup races too when workers start together.
                await conn.execute("SELECT pg_advisory_lock(%s)", (_MIGRATION_LOCK + 1,))
                try:
                    await pg_saver.setup()
                finally:
                    await conn.execute("SELECT pg_advisory_unlock(%s)", (_MIGRATION_LOCK + 1,))
            await db.migrate()
            yield Storage(db, pg_saver, url)
        return
    import aiosqlite

    async with open_checkpointer(url) as saver:
        path = ":memory:" if backend == "memory" else str(sqlite_path(url))
        # Autocommit: every statement is its own transaction, so workers see each other's writes.
        async with aiosqlite.connect(path, timeout=30, isolation_level=None) as conn:
            conn.row_factory = aiosqlite.Row
            await conn.execute("PRAGMA busy_timeout=30000")
            if backend == "sqlite":
                # WAL with synchronous=NORMAL: no fsync per commit, still safe when the process
                # is killed (only an OS crash can lose the last commits). Both connections.
                await conn.execute("PRAGMA journal_mode=WAL")
                from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

                assert isinstance(saver, AsyncSqliteSaver)  # what open_checkpointer opens here
                for c in (conn, saver.conn):
                    await c.execute("PRAGMA synchronous=NORMAL")
            db = Database("sqlite", conn)
            await db.migrate()
            yield Storage(db, saver, url)
