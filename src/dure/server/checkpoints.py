"""Checkpointer bookkeeping the turn journal needs: the latest checkpoint, and undoing the
pending writes a cut-off turn left on the checkpoint it started from.

Why the writes matter: a turn that answers a pending `interrupt()` stores its resume value and
the writes of the tasks it finished *on the starting checkpoint*. LangGraph replays those on
the next run from that checkpoint (that is its crash recovery), so a re-sent answer would be
ignored in favour of the cut-off one. Dropping exactly the writes the turn added restores the
checkpoint as it was. LangGraph has no API for that, so this reads the savers' tables
(`writes` in SQLite, `checkpoint_writes` in Postgres) or the in-memory saver's dict.
"""

from __future__ import annotations

from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.memory import InMemorySaver

from dure.server.database import Storage

WriteKey = list[Any]  # [task_id, idx]


def _table(storage: Storage) -> str:
    return "checkpoint_writes" if storage.db.backend == "postgres" else "writes"


async def latest_checkpoint(storage: Storage, thread_id: str) -> str | None:
    """The id of the thread's newest checkpoint (None when it has none)."""
    if isinstance(storage.checkpointer, InMemorySaver):
        found = await storage.checkpointer.aget_tuple(pinned(thread_id, None))
        return found.config["configurable"]["checkpoint_id"] if found else None
    # Checkpoint ids grow with time (uuid6), as the savers' own "latest" query relies on.
    row = await storage.db.fetchone(
        "SELECT checkpoint_id FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = ''"
        " ORDER BY checkpoint_id DESC LIMIT 1",
        (thread_id,),
    )
    return row["checkpoint_id"] if row else None


async def write_keys(storage: Storage, thread_id: str, checkpoint_id: str) -> list[WriteKey]:
    """The pending writes stored on a checkpoint, as `[task_id, idx]` pairs."""
    saver = storage.checkpointer
    if isinstance(saver, InMemorySaver):
        return [list(k) for k in saver.writes.get((thread_id, "", checkpoint_id), {})]
    rows = await storage.db.fetchall(
        f"SELECT task_id, idx FROM {_table(storage)}"  # the table name is ours, not input
        " WHERE thread_id = ? AND checkpoint_ns = '' AND checkpoint_id = ?",
        (thread_id, checkpoint_id),
    )
    return [[r["task_id"], int(r["idx"])] for r in rows]


async def discard_writes(
    storage: Storage, thread_id: str, checkpoint_id: str, keep: list[WriteKey]
) -> int:
    """Drop the writes on a checkpoint that are not in `keep`; how many were dropped."""
    kept = {(k[0], int(k[1])) for k in keep}
    extra = [k for k in await write_keys(storage, thread_id, checkpoint_id) if tuple(k) not in kept]
    saver = storage.checkpointer
    if isinstance(saver, InMemorySaver):
        stored = saver.writes.get((thread_id, "", checkpoint_id), {})
        for task_id, idx in extra:
            stored.pop((task_id, idx), None)
        return len(extra)
    for task_id, idx in extra:
        await storage.db.execute(
            f"DELETE FROM {_table(storage)}"  # the table name is ours, not input
            " WHERE thread_id = ? AND checkpoint_ns = '' AND checkpoint_id = ? AND task_id = ?"
            " AND idx = ?",
            (thread_id, checkpoint_id, task_id, idx),
        )
    return len(extra)


async def delete_thread(storage: Storage, thread_id: str) -> None:
    """Forget every checkpoint of a thread."""
    await storage.checkpointer.adelete_thread(thread_id)


def pinned(thread_id: str, checkpoint_id: str | None) -> RunnableConfig:
    """A run config for a thread at one checkpoint (its latest when `checkpoint_id` is None)."""
    configurable: dict[str, Any] = {"thread_id": thread_id}
    if checkpoint_id:
        configurable["checkpoint_id"] = checkpoint_id
    return {"configurable": configurable}
