"""Runs once started: list and read them, wait for one to end (`join`), join its stream, and
cancel it — from any worker for `join` and `cancel` (through the turn journal), from the one
that runs it for its stream."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated, Any, Literal

from fastapi import APIRouter, HTTPException, Query

from dure.server.deps import Owner, StoreDep, TurnsDep
from dure.server.protocol import wire
from dure.server.protocol.runs import final_values, live_runs, location, run_frames
from dure.server.protocol.stream import requested
from dure.server.routes.threads import owned_thread
from dure.server.sse import frame, sse_response
from dure.server.store import RUNNING, STATE_UPDATE, Store, Thread, Turn

router = APIRouter(tags=["langgraph"])

RUN_NOT_FOUND = "실행(run)을 찾을 수 없습니다."


async def owned_run(store: Store, owner: str, thread_id: str, run_id: str) -> tuple[Thread, Turn]:
    """The caller's thread and one of its runs (404 otherwise)."""
    thread = await owned_thread(store, owner, thread_id)
    turn = await store.turn(thread.id, run_id)
    if turn is None:
        raise HTTPException(404, RUN_NOT_FOUND)
    return thread, turn


@router.get("/threads/{thread_id}/runs", summary="실행 목록 (LangGraph)")
async def list_runs(
    thread_id: str,
    owner: Owner,
    store: StoreDep,
    limit: int = 10,
    offset: int = 0,
    status: str | None = None,
) -> list[dict[str, Any]]:
    """The thread's runs, newest first."""
    thread = await owned_thread(store, owner, thread_id)
    journal = [t for t in reversed(await store.turns(thread.id)) if t.message != STATE_UPDATE]
    runs = [wire.run(t, thread.agent) for t in journal]
    runs = [r for r in runs if status in (None, r["status"])]
    return runs[offset : offset + limit]


@router.get("/threads/{thread_id}/runs/{run_id}", summary="실행 (LangGraph)")
async def read_run(thread_id: str, run_id: str, owner: Owner, store: StoreDep) -> dict[str, Any]:
    """One run."""
    thread, turn = await owned_run(store, owner, thread_id, run_id)
    return wire.run(turn, thread.agent)


@router.get("/threads/{thread_id}/runs/{run_id}/join", summary="실행 끝 기다리기 (LangGraph)")
async def join_run(
    thread_id: str, run_id: str, owner: Owner, store: StoreDep, turns: TurnsDep
) -> dict[str, Any]:
    """Wait until the run ends (on whichever worker runs it); the thread's values then."""
    thread, turn = await owned_run(store, owner, thread_id, run_id)
    return await final_values(turns, thread, await turns.ended(turn))


@router.post("/threads/{thread_id}/runs/{run_id}/cancel", summary="실행 중지 (LangGraph)")
async def cancel_run(
    thread_id: str,
    run_id: str,
    owner: Owner,
    store: StoreDep,
    turns: TurnsDep,
    wait: bool = False,
    action: Literal["interrupt", "rollback"] = "interrupt",
) -> dict[str, Any]:
    """Stop the run on whichever worker runs it; with `wait`, answer once it has stopped. Its
    model call halts, and the thread reads as before the run (both `action`s: a stopped turn
    is always rolled back); 409 for a run that has ended."""
    thread, turn = await owned_run(store, owner, thread_id, run_id)
    if not await turns.request_stop(turn):
        raise HTTPException(409, "이미 끝난 실행입니다.")
    return wire.run(await turns.ended(turn) if wait else turn, thread.agent)


@router.get(
    "/threads/{thread_id}/runs/{run_id}/stream",
    summary="실행 스트림 이어 받기 (LangGraph)",
    responses={200: {"content": {"text/event-stream": {}}}},
)
async def join_stream(
    thread_id: str,
    run_id: str,
    owner: Owner,
    store: StoreDep,
    stream_mode: Annotated[list[str] | None, Query()] = None,
) -> Any:
    """The run's stream from its start (the modes asked for, else those it was started with),
    on the worker that runs it; a run that has ended sends `metadata` and `end` alone."""
    thread, turn = await owned_run(store, owner, thread_id, run_id)
    asked = [m for m in stream_mode or [] if m]
    if live := live_runs.get(turn.id):
        run, feed = live
        return sse_response(run_frames(run, feed, requested(asked or feed.modes)), location(run))
    if turn.status == RUNNING:
        raise HTTPException(
            409, "이 실행은 다른 서버 프로세스가 하고 있어 여기서는 이어 받을 수 없습니다."
        )

    async def ended() -> AsyncIterator[str]:
        yield frame({"run_id": turn.id, "thread_id": thread.id, "attempt": 1}, "metadata")
        yield frame({"run_id": turn.id, "status": wire.run(turn, thread.agent)["status"]}, "end")

    return sse_response(ended())
