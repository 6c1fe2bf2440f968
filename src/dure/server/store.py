"""Rows of the server tables: threads (owned by a key), the turn journal, uploaded documents.

The turn journal is what makes a thread crash-safe: a turn is `running` while it streams and
becomes `done` (with the checkpoint it ended on), `failed`, `cancelled` or `interrupted`. A
thread's *head* is the checkpoint of its last `done` turn; the next turn starts there, so
whatever a cut-off turn half-wrote to the checkpointer is never read.
"""

from __future__ import annotations

import json
import time
import uuid
from dataclasses import asdict, dataclass, field
from typing import Any

from dure.server.database import Database, Row

RUNNING, DONE, FAILED, INTERRUPTED = "running", "done", "failed", "interrupted"
#: A turn that was stopped (a stop request, or its client left): kept with a note, rolled back.
CANCELLED = "cancelled"
#: The owner of everything when authentication is off (loopback only).
LOCAL_OWNER = "local"
#: The message of a journal row that records a change of a thread's state made outside a turn
#: (LangGraph's `update_state`): it moves the head like a turn, but is not a run.
STATE_UPDATE = "(상태 변경: update_state)"


def new_id() -> str:
    """A fresh random id (32 hex digits)."""
    return uuid.uuid4().hex


@dataclass
class Thread:
    """A conversation owned by one key."""

    id: str
    owner: str
    agent: str
    title: str
    options: dict[str, Any]
    created_at: float
    updated_at: float
    alias: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_row(cls, row: Row) -> Thread:
        """From a `dure_threads` row."""
        loaded = {k: json.loads(row[k]) for k in ("options", "metadata")}
        return cls(**{**row, **loaded})

    def public(self) -> dict[str, Any]:
        """What the API shows (never the owner)."""
        data = asdict(self)
        del data["owner"]
        return data


@dataclass
class Turn:
    """One user message and what became of it."""

    id: str
    thread_id: str
    seq: int
    status: str
    message: str
    worker: str
    started_at: float
    heartbeat_at: float
    answer: str | None = None
    sources: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    waiting: bool = False
    checkpoint_before: str | None = None
    checkpoint_after: str | None = None
    kept_writes: list[list[Any]] = field(default_factory=list)
    finished_at: float | None = None
    #: Someone asked the worker that runs it to stop it (`Store.request_stop`).
    stop_requested: bool = False

    @classmethod
    def from_row(cls, row: Row) -> Turn:
        """From a `dure_turns` row."""
        data = dict(row)
        for key in ("sources", "events", "kept_writes"):
            data[key] = json.loads(data[key]) if data.get(key) else []
        data["waiting"] = bool(data["waiting"])
        data["stop_requested"] = bool(data["stop_requested"])
        return cls(**data)

    def public(self) -> dict[str, Any]:
        """What the API shows."""
        return {
            k: getattr(self, k)
            for k in (
                "id",
                "seq",
                "status",
                "message",
                "answer",
                "sources",
                "events",
                "waiting",
                "started_at",
                "finished_at",
            )
        }


class Store:
    """Queries over the server tables."""

    def __init__(self, db: Database) -> None:
        self.db = db

    # -- threads

    async def create_thread(
        self,
        owner: str,
        agent: str,
        title: str,
        options: dict[str, Any],
        alias: str | None = None,
        metadata: dict[str, Any] | None = None,
        thread_id: str | None = None,
    ) -> Thread:
        """A new thread for `owner` (`IntegrityError` when `thread_id` is taken)."""
        now = time.time()
        thread = Thread(
            thread_id or new_id(), owner, agent, title, options, now, now, alias, metadata or {}
        )
        await self.db.execute(
            "INSERT INTO dure_threads (id, owner, alias, agent, title, options, created_at,"
            " updated_at, metadata) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                thread.id,
                owner,
                alias,
                agent,
                title,
                json.dumps(options, ensure_ascii=False),
                now,
                now,
                json.dumps(thread.metadata, ensure_ascii=False),
            ),
        )
        return thread

    async def bind_agent(self, thread: Thread, agent: str, options: dict[str, Any]) -> bool:
        """Give a thread created without an agent its agent and options (its first run);
        False when it has one already."""
        bound = await self.db.execute(
            "UPDATE dure_threads SET agent = ?, options = ? WHERE id = ? AND agent = ''",
            (agent, json.dumps(options, ensure_ascii=False), thread.id),
        )
        if bound:
            thread.agent, thread.options = agent, options
        return bool(bound)

    async def thread(self, owner: str, thread_id: str) -> Thread | None:
        """The thread, if `owner` has it (another key's thread does not exist for you)."""
        row = await self.db.fetchone(
            "SELECT * FROM dure_threads WHERE id = ? AND owner = ?", (thread_id, owner)
        )
        return Thread.from_row(row) if row else None

    async def thread_by_alias(self, owner: str, alias: str) -> Thread | None:
        """The thread a client named (OpenAI `user` field)."""
        row = await self.db.fetchone(
            "SELECT * FROM dure_threads WHERE owner = ? AND alias = ?", (owner, alias)
        )
        return Thread.from_row(row) if row else None

    async def threads(self, owner: str, limit: int = 200) -> list[Thread]:
        """`owner`'s threads, most recently used first."""
        rows = await self.db.fetchall(
            "SELECT * FROM dure_threads WHERE owner = ? ORDER BY updated_at DESC LIMIT ?",
            (owner, limit),
        )
        return [Thread.from_row(r) for r in rows]

    async def touch_thread(self, thread_id: str, message: str) -> None:
        """Mark the thread used now; an untitled thread is named after its first message."""
        words = " ".join(message.split())
        title = words[:40] + ("…" if len(words) > 40 else "")
        await self.db.execute(
            "UPDATE dure_threads SET updated_at = ?,"
            " title = CASE WHEN title = '' THEN ? ELSE title END WHERE id = ?",
            (time.time(), title, thread_id),
        )

    async def delete_thread(self, owner: str, thread_id: str) -> bool:
        """Delete the thread and its journal; False when `owner` has no such thread."""
        if not await self.db.execute(
            "DELETE FROM dure_threads WHERE id = ? AND owner = ?", (thread_id, owner)
        ):
            return False
        await self.db.execute("DELETE FROM dure_turns WHERE thread_id = ?", (thread_id,))
        await self.db.execute("DELETE FROM dure_conversations WHERE thread_id = ?", (thread_id,))
        return True

    # -- the turn journal

    async def turns(self, thread_id: str) -> list[Turn]:
        """The thread's turns in order."""
        rows = await self.db.fetchall(
            "SELECT * FROM dure_turns WHERE thread_id = ? ORDER BY seq", (thread_id,)
        )
        return [Turn.from_row(r) for r in rows]

    async def turn(self, thread_id: str, turn_id: str) -> Turn | None:
        """One turn of the thread."""
        row = await self.db.fetchone(
            "SELECT * FROM dure_turns WHERE thread_id = ? AND id = ?", (thread_id, turn_id)
        )
        return Turn.from_row(row) if row else None

    async def running_turn(self, thread_id: str) -> Turn | None:
        """The turn streaming on the thread right now, if any."""
        row = await self.db.fetchone(
            "SELECT * FROM dure_turns WHERE thread_id = ? AND status = ?", (thread_id, RUNNING)
        )
        return Turn.from_row(row) if row else None

    async def newest_turn(self, thread_id: str) -> Turn | None:
        """The thread's newest turn, whatever became of it."""
        row = await self.db.fetchone(
            "SELECT * FROM dure_turns WHERE thread_id = ? ORDER BY seq DESC LIMIT 1", (thread_id,)
        )
        return Turn.from_row(row) if row else None

    async def last_turn(self, thread_id: str) -> Turn | None:
        """The thread's newest turn that is running or done."""
        row = await self.db.fetchone(
            "SELECT * FROM dure_turns WHERE thread_id = ? AND status IN (?, ?)"
            " ORDER BY seq DESC LIMIT 1",
            (thread_id, RUNNING, DONE),
        )
        return Turn.from_row(row) if row else None

    async def head(self, thread_id: str) -> str | None:
        """The checkpoint the thread's last completed turn ended on (None: a fresh thread)."""
        row = await self.db.fetchone(
            "SELECT checkpoint_after FROM dure_turns WHERE thread_id = ? AND status = ?"
            " ORDER BY seq DESC LIMIT 1",
            (thread_id, DONE),
        )
        return row["checkpoint_after"] if row else None

    async def begin_turn(self, turn: Turn) -> None:
        """Journal a turn as running; `IntegrityError` when one is running already."""
        row = await self.db.fetchone(
            "INSERT INTO dure_turns (id, thread_id, seq, status, message, worker, started_at,"
            " heartbeat_at, checkpoint_before, kept_writes)"
            " SELECT ?, ?, COALESCE(MAX(seq), 0) + 1, ?, ?, ?, ?, ?, ?, ?"
            " FROM dure_turns WHERE thread_id = ? RETURNING seq",
            (
                turn.id,
                turn.thread_id,
                RUNNING,
                turn.message,
                turn.worker,
                turn.started_at,
                turn.heartbeat_at,
                turn.checkpoint_before,
                json.dumps(turn.kept_writes),
                turn.thread_id,
            ),
        )
        turn.seq = int(row["seq"]) if row else 0

    async def finish_turn(self, turn: Turn) -> None:
        """Record how a running turn ended (status, answer, sources, events, checkpoint)."""
        turn.finished_at = time.time()
        await self.db.execute(
            "UPDATE dure_turns SET status = ?, answer = ?, sources = ?, events = ?, waiting = ?,"
            " checkpoint_after = ?, finished_at = ? WHERE id = ? AND status = ?",
            (
                turn.status,
                turn.answer,
                json.dumps(turn.sources, ensure_ascii=False),
                json.dumps(turn.events, ensure_ascii=False),
                int(turn.waiting),
                turn.checkpoint_after,
                turn.finished_at,
                turn.id,
                RUNNING,
            ),
        )

    async def mark_interrupted(self, turn_id: str) -> bool:
        """Mark a running turn interrupted; True for the one caller that did it."""
        return bool(
            await self.db.execute(
                "UPDATE dure_turns SET status = ?, finished_at = ? WHERE id = ? AND status = ?",
                (INTERRUPTED, time.time(), turn_id, RUNNING),
            )
        )

    async def request_stop(self, turn_id: str) -> bool:
        """Ask the worker that runs a turn to stop it; False when it is not running."""
        return bool(
            await self.db.execute(
                "UPDATE dure_turns SET stop_requested = 1 WHERE id = ? AND status = ?",
                (turn_id, RUNNING),
            )
        )

    async def stops_for(self, worker: str) -> list[str]:
        """The running turns of `worker` that someone asked to stop."""
        rows = await self.db.fetchall(
            "SELECT id FROM dure_turns WHERE worker = ? AND status = ? AND stop_requested = 1",
            (worker, RUNNING),
        )
        return [r["id"] for r in rows]

    async def heartbeat(self, worker: str) -> None:
        """Tell other workers this worker's running turns are alive."""
        await self.db.execute(
            "UPDATE dure_turns SET heartbeat_at = ? WHERE worker = ? AND status = ?",
            (time.time(), worker, RUNNING),
        )

    # -- documents

    async def add_document(self, doc: dict[str, Any]) -> None:
        """Record an uploaded document (`info`: what parsing found, JSON)."""
        await self.db.execute(
            "INSERT INTO dure_documents (id, owner, name, kind, path, size, collection, info,"
            " created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                doc["id"],
                doc["owner"],
                doc["name"],
                doc["kind"],
                doc["path"],
                doc["size"],
                doc.get("collection"),
                json.dumps(doc.get("info") or {}, ensure_ascii=False),
                doc["created_at"],
            ),
        )

    async def document(self, owner: str, doc_id: str) -> Row | None:
        """One of `owner`'s documents."""
        row = await self.db.fetchone(
            "SELECT * FROM dure_documents WHERE id = ? AND owner = ?", (doc_id, owner)
        )
        return _doc(row) if row else None

    async def documents(self, owner: str) -> list[Row]:
        """`owner`'s documents, newest first."""
        rows = await self.db.fetchall(
            "SELECT * FROM dure_documents WHERE owner = ? ORDER BY created_at DESC", (owner,)
        )
        return [_doc(r) for r in rows]

    async def delete_document(self, owner: str, doc_id: str) -> bool:
        """Forget a document; False when `owner` has none such."""
        return bool(
            await self.db.execute(
                "DELETE FROM dure_documents WHERE id = ? AND owner = ?", (doc_id, owner)
            )
        )

    # -- per-key rate limit (fixed one-minute windows, shared by every worker)

    async def count_request(self, owner: str) -> int:
        """Count one request for `owner` in the current minute; the minute's total."""
        minute = int(time.time() // 60)
        row = await self.db.fetchone(
            "INSERT INTO dure_rate (owner, minute, n) VALUES (?, ?, 1) ON CONFLICT (owner, minute)"
            " DO UPDATE SET n = dure_rate.n + 1 RETURNING n",
            (owner, minute),
        )
        if row and row["n"] == 1:  # first request of a minute: forget finished minutes
            await self.db.execute("DELETE FROM dure_rate WHERE minute < ?", (minute - 1,))
        return int(row["n"]) if row else 1

    # -- OpenAI clients that send the whole conversation without a thread id

    async def conversation(self, owner: str, digest: str) -> str | None:
        """The thread a conversation prefix (by digest) continues."""
        row = await self.db.fetchone(
            "SELECT thread_id FROM dure_conversations WHERE owner = ? AND digest = ?",
            (owner, digest),
        )
        return row["thread_id"] if row else None

    async def remember_conversation(self, owner: str, digest: str, thread_id: str) -> None:
        """Remember which thread a conversation (by digest) lives in."""
        await self.db.execute(
            "INSERT INTO dure_conversations (owner, digest, thread_id, created_at)"
            " VALUES (?, ?, ?, ?) ON CONFLICT (owner, digest) DO NOTHING",
            (owner, digest, thread_id, time.time()),
        )


def _doc(row: Row) -> Row:
    return {**row, "info": json.loads(row["info"])}
