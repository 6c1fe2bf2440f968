"""Threads as LangGraph's clients see them: create, read, search, delete, state and history.

They are Dure's threads (same table, same keys: another key's thread is a 404 here too). A
thread created here has no agent until its first run gives it one (and its documents); its
state is the agent's state at the thread's head, the checkpoint of its last completed turn.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from fastapi import APIRouter, HTTPException, Response
from langgraph.errors import InvalidUpdateError
from pydantic import BaseModel, ConfigDict, Field

from dure.agents import get_agent
from dure.server import checkpoints
from dure.server.database import IntegrityError
from dure.server.deps import Owner, StoreDep, TurnsDep
from dure.server.protocol import wire
from dure.server.routes.threads import delete_thread, owned_thread
from dure.server.store import DONE, STATE_UPDATE, Store, Thread
from dure.server.turns import TurnBusyError, Turns

router = APIRouter(tags=["langgraph"])

#: A thread id a client may choose (LangGraph's are UUIDs).
THREAD_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
TAKEN = "이 thread_id는 쓸 수 없습니다 (이미 있는 대화입니다)."


class ThreadCreate(BaseModel):
    """`POST /threads`."""

    model_config = ConfigDict(extra="allow")

    thread_id: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)
    if_exists: Literal["raise", "do_nothing"] = "raise"


class ThreadSearch(BaseModel):
    """`POST /threads/search` (and `/threads/count`)."""

    model_config = ConfigDict(extra="allow")

    metadata: dict[str, Any] | None = None
    ids: list[str] | None = None
    status: Literal["idle", "busy", "interrupted", "error"] | None = None
    limit: int = Field(10, ge=1, le=1000)
    offset: int = Field(0, ge=0)


class HistoryQuery(BaseModel):
    """`POST /threads/{id}/history`."""

    model_config = ConfigDict(extra="allow")

    limit: int = Field(10, ge=1, le=1000)
    before: dict[str, Any] | str | None = None


class StateUpdate(BaseModel):
    """`POST /threads/{id}/state`."""

    model_config = ConfigDict(extra="allow")

    values: dict[str, Any] | list[Any] | None = None
    as_node: str | None = None


class CheckpointQuery(BaseModel):
    """`POST /threads/{id}/state/checkpoint`."""

    model_config = ConfigDict(extra="allow")

    checkpoint: dict[str, Any]


async def create(
    store: Store, owner: str, thread_id: str | None, metadata: dict[str, Any]
) -> Thread:
    """A new thread for `owner`, without an agent until its first run, with the client's id
    when it chose one (409 when taken)."""
    if thread_id is not None and not THREAD_ID.fullmatch(thread_id):
        raise HTTPException(422, "thread_id는 영문, 숫자, '-', '_'로 된 64자 이내여야 합니다.")
    try:
        return await store.create_thread(owner, "", "", {}, metadata=metadata, thread_id=thread_id)
    except IntegrityError as e:
        raise HTTPException(409, TAKEN) from e


async def status_of(turns: Turns, thread: Thread) -> str:
    """The thread's status from its journal (a dead worker's turn is recovered first)."""
    await turns.recover(thread.id)
    return wire.thread_status(await turns.store.last_turn(thread.id))


async def graph_for(turns: Turns, thread: Thread) -> Any:
    """The thread's agent graph, compiled on the server's checkpointer."""
    return get_agent(thread.agent).build(await turns.context(thread))


async def state_at(turns: Turns, thread: Thread, checkpoint_id: str | None) -> dict[str, Any]:
    """The thread's `ThreadState` at a checkpoint (its head when None)."""
    head = checkpoint_id or await turns.store.head(thread.id)
    if not thread.agent or head is None:
        return wire.empty_state(thread.id)
    graph = await graph_for(turns, thread)
    snapshot = await graph.aget_state(checkpoints.pinned(thread.id, head))
    if snapshot.config is None or snapshot.created_at is None:
        raise HTTPException(404, "체크포인트를 찾을 수 없습니다.")
    state = wire.thread_state(snapshot)
    return await with_conversation(turns, thread, state) if checkpoint_id is None else state


async def with_conversation(turns: Turns, thread: Thread, state: dict[str, Any]) -> dict[str, Any]:
    """The head's state with `messages` for an agent whose state keeps none (the task agent
    keeps slots): the conversation as the journal has it, each completed turn's message and
    answer, so a chat UI shows it."""
    if "messages" in state["values"]:
        return state
    journal = await turns.store.turns(thread.id)
    state["values"]["messages"] = wire.conversation(
        [t for t in journal if t.status == DONE and t.message != STATE_UPDATE]
    )
    return state


async def shown(turns: Turns, thread: Thread) -> dict[str, Any]:
    """The thread with its status, values and pending interrupts."""
    state = await state_at(turns, thread, None)
    return wire.thread(thread, await status_of(turns, thread), state["values"], state["interrupts"])


@router.post("/threads", summary="새 대화 (LangGraph)")
async def create_thread(
    body: ThreadCreate, owner: Owner, store: StoreDep, turns: TurnsDep
) -> dict[str, Any]:
    """Create a thread (`if_exists: do_nothing` returns the caller's existing one)."""
    if body.thread_id and body.if_exists == "do_nothing":
        found = await store.thread(owner, body.thread_id)
        if found:
            return wire.thread(found, await status_of(turns, found))
    return wire.thread(await create(store, owner, body.thread_id, body.metadata), "idle")


@router.post("/threads/search", summary="대화 찾기 (LangGraph)")
async def search_threads(
    body: ThreadSearch, owner: Owner, store: StoreDep, turns: TurnsDep
) -> list[dict[str, Any]]:
    """The caller's threads, most recently used first, filtered by metadata, ids and status
    (`values` is left out here: read a thread for its state)."""
    found = []
    for thread in await store.threads(owner, limit=1000):
        meta = wire.thread(thread, "idle")["metadata"]
        if body.ids is not None and thread.id not in body.ids:
            continue
        if any(meta.get(k) != v for k, v in (body.metadata or {}).items()):
            continue
        status = await status_of(turns, thread)
        if body.status in (None, status):
            found.append(wire.thread(thread, status))
    return found[body.offset : body.offset + body.limit]


@router.post("/threads/count", summary="대화 수 (LangGraph)")
async def count_threads(body: ThreadSearch, owner: Owner, store: StoreDep, turns: TurnsDep) -> int:
    """How many threads the search finds."""
    unbounded = body.model_copy(update={"limit": 1000, "offset": 0})
    return len(await search_threads(unbounded, owner, store, turns))


@router.get("/threads/{thread_id}", summary="대화 (LangGraph)")
async def read_thread(
    thread_id: str, owner: Owner, store: StoreDep, turns: TurnsDep
) -> dict[str, Any]:
    """One thread: status, values at its head, pending interrupts."""
    return await shown(turns, await owned_thread(store, owner, thread_id))


@router.delete("/threads/{thread_id}", status_code=204, summary="대화 삭제 (LangGraph)")
async def remove_thread(thread_id: str, owner: Owner, store: StoreDep, turns: TurnsDep) -> Response:
    """Delete a thread, its journal and its checkpoints (409 while it answers)."""
    return await delete_thread(thread_id, owner, store, turns)


@router.get("/threads/{thread_id}/state", summary="대화 상태 (LangGraph)")
async def read_state(
    thread_id: str, owner: Owner, store: StoreDep, turns: TurnsDep, subgraphs: bool = False
) -> dict[str, Any]:
    """The state at the thread's head."""
    return await state_at(turns, await owned_thread(store, owner, thread_id), None)


@router.get("/threads/{thread_id}/state/{checkpoint_id}", summary="체크포인트의 상태 (LangGraph)")
async def read_state_at(
    thread_id: str,
    checkpoint_id: str,
    owner: Owner,
    store: StoreDep,
    turns: TurnsDep,
    subgraphs: bool = False,
) -> dict[str, Any]:
    """The state at one of the thread's checkpoints."""
    return await state_at(turns, await owned_thread(store, owner, thread_id), checkpoint_id)


@router.post("/threads/{thread_id}/state/checkpoint", summary="체크포인트의 상태 (LangGraph)")
async def read_state_at_checkpoint(
    thread_id: str, body: CheckpointQuery, owner: Owner, store: StoreDep, turns: TurnsDep
) -> dict[str, Any]:
    """The state at the checkpoint the body names."""
    thread = await owned_thread(store, owner, thread_id)
    return await state_at(turns, thread, body.checkpoint.get("checkpoint_id"))


@router.post("/threads/{thread_id}/state", summary="대화 상태 바꾸기 (LangGraph)")
async def update_state(
    thread_id: str, body: StateUpdate, owner: Owner, store: StoreDep, turns: TurnsDep
) -> dict[str, Any]:
    """Write `values` to the thread's state as `as_node` would have (journaled like a turn:
    the thread's head moves to the new checkpoint); 409 while the thread answers."""
    thread = await owned_thread(store, owner, thread_id)
    if not thread.agent:
        raise HTTPException(409, "아직 실행한 적 없는 대화입니다. 먼저 실행(run)하세요.")
    graph = await graph_for(turns, thread)

    async def write(head: str | None) -> str:
        at = checkpoints.pinned(thread.id, head)
        at["configurable"]["checkpoint_ns"] = ""  # the root graph (update_state needs it said)
        try:
            config = await graph.aupdate_state(at, body.values, as_node=body.as_node)
        except (ValueError, KeyError, TypeError, InvalidUpdateError) as e:
            raise HTTPException(422, f"상태를 바꿀 수 없습니다: {e}") from e
        return str(config["configurable"]["checkpoint_id"])

    try:
        checkpoint_id = await turns.record_update(thread, write)
    except TurnBusyError as e:
        raise HTTPException(409, str(e)) from e
    return {"checkpoint": wire.checkpoint(thread.id, checkpoint_id)}


@router.post("/threads/{thread_id}/history", summary="대화 상태 기록 (LangGraph)")
async def read_history(
    thread_id: str, body: HistoryQuery, owner: Owner, store: StoreDep, turns: TurnsDep
) -> list[dict[str, Any]]:
    """The states from the thread's head back to its start, newest first (`before`: only
    those older than that checkpoint)."""
    thread = await owned_thread(store, owner, thread_id)
    head = await store.head(thread.id)
    if not thread.agent or head is None:
        return []
    before = body.before.get("checkpoint_id") if isinstance(body.before, dict) else body.before
    graph = await graph_for(turns, thread)
    # Walk parent links from the head: the thread's own line, without the checkpoints that
    # cut-off or failed turns left beside it.
    config: Any = checkpoints.pinned(thread.id, before or head)
    if before:
        config = (await graph.aget_state(config)).parent_config
    states: list[dict[str, Any]] = []
    while config and len(states) < body.limit:
        snapshot = await graph.aget_state(config)
        if snapshot.created_at is None:
            break
        states.append(wire.thread_state(snapshot))
        config = snapshot.parent_config
    if states and not before:  # the first is the head
        await with_conversation(turns, thread, states[0])
    return states
