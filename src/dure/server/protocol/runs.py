"""Runs: a run is one of Dure's journaled turns, started through the same turn machinery as a
message (one at a time per thread, crash-safe, the server's cap on concurrent turns).

Its input is the conversation's new messages (the last user message is the turn) or
`command.resume`, the answer to the agent's pending question. Streamed (`…/runs/stream`),
waited for (`…/runs/wait`) or in the background (`…/runs`, then `join`); without a thread
(`/runs/…`) it runs on a thread of its own that is deleted afterwards (`on_completion`).
`join` reads the journal, so any worker answers it for any run.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, Literal

from fastapi import APIRouter, HTTPException
from langchain_core.messages import HumanMessage, convert_to_messages
from pydantic import BaseModel, ConfigDict

from dure.agent import AgentSpec
from dure.events import ErrorEvent, Tap
from dure.server.deps import Owner, SettingsDep, StoreDep, TurnsDep
from dure.server.documents import THREAD_OPTIONS, check_options
from dure.server.protocol import threads, wire
from dure.server.protocol.assistants import find_agent
from dure.server.protocol.stream import Encoder, graph_modes, requested
from dure.server.routes.threads import check_message, delete_thread, owned_thread
from dure.server.sse import frame, sse_response
from dure.server.store import DONE, STATE_UPDATE, Store, Thread, Turn
from dure.server.turns import RunningTurn, Turns
from dure.settings import Settings

log = logging.getLogger(__name__)
router = APIRouter(tags=["langgraph"])

RUN_NOT_FOUND = "실행(run)을 찾을 수 없습니다."
#: Tasks that outlive their request (draining a run nobody streams, deleting its thread).
_background: set[asyncio.Task[Any]] = set()


class RunCreate(BaseModel):
    """The fields of a run request Dure uses (others are accepted and ignored)."""

    model_config = ConfigDict(extra="allow")

    assistant_id: str
    input: dict[str, Any] | None = None
    command: dict[str, Any] | None = None
    stream_mode: str | list[str] | None = None
    config: dict[str, Any] | None = None
    context: dict[str, Any] | None = None
    metadata: dict[str, Any] | None = None
    if_not_exists: Literal["create", "reject"] = "reject"
    on_completion: Literal["delete", "keep"] | None = None
    interrupt_before: str | list[str] | None = None
    interrupt_after: str | list[str] | None = None


def turn_message(body: RunCreate) -> str:
    """The turn's message: the resume value (JSON unless text), or the last user message."""
    if body.interrupt_before or body.interrupt_after:
        raise HTTPException(422, "interrupt_before / interrupt_after는 지원하지 않습니다.")
    if body.command is not None:
        others = [k for k, v in body.command.items() if k != "resume" and v]
        if others or "resume" not in body.command:
            raise HTTPException(422, "command는 resume만 지원합니다.")
        resume = body.command["resume"]
        return resume if isinstance(resume, str) else json.dumps(resume, ensure_ascii=False)
    messages = (body.input or {}).get("messages") or []
    try:
        given = convert_to_messages(messages if isinstance(messages, list) else [messages])
    except (ValueError, TypeError, NotImplementedError) as e:
        raise HTTPException(422, f"input.messages를 읽을 수 없습니다: {e}") from e
    human = [m for m in given if isinstance(m, HumanMessage)]
    if not human:
        raise HTTPException(422, "input.messages에 사용자(human) 메시지가 없습니다.")
    return human[-1].text


async def _options(store: Store, owner: str, body: RunCreate) -> dict[str, str]:
    """What the run says its thread works on (`context` or `config.configurable`), checked
    against the key's documents."""
    given = {**(body.config or {}).get("configurable", {}), **(body.context or {})}
    options = {k: given[k] for k in THREAD_OPTIONS if isinstance(given.get(k), str)}
    await check_options(store, owner, options)
    return options


async def _bind(
    store: Store, owner: str, thread: Thread, spec: AgentSpec, options: dict[str, str]
) -> None:
    """Give an unbound thread the run's agent and options; 409 for another agent's thread."""
    if not thread.agent and not await store.bind_agent(thread, spec.name, options):
        thread.agent = (await owned_thread(store, owner, thread.id)).agent
    if thread.agent != spec.name:
        raise HTTPException(
            409, f"이 대화의 에이전트는 {thread.agent}입니다 (요청한 어시스턴트: {spec.name})."
        )


async def _thread(store: Store, owner: str, thread_id: str | None, body: RunCreate) -> Thread:
    """The run's thread: the caller's (created when `if_not_exists` says so), or a new one
    for a stateless run."""
    if thread_id is None:
        return await threads.create(store, owner, None, {})
    found = await store.thread(owner, thread_id)
    if found:
        return found
    if body.if_not_exists != "create":
        await owned_thread(store, owner, thread_id)  # the 404
    return await threads.create(store, owner, thread_id, {})


class Run:
    """A started run: its thread, agent, turn, and the stream items a tap collected."""

    def __init__(self, thread: Thread, spec: AgentSpec, running: RunningTurn) -> None:
        self.thread = thread
        self.spec = spec
        self.running = running

    @property
    def turn(self) -> Turn:
        """The run's journal row (updated as it ends)."""
        return self.running.turn

    def public(self, metadata: dict[str, Any] | None = None) -> dict[str, Any]:
        """As a `Run`."""
        return wire.run(self.turn, self.spec.name, metadata)


async def start(
    turns: Turns,
    settings: Settings,
    owner: str,
    thread_id: str | None,
    body: RunCreate,
    tap: Tap | None = None,
) -> Run:
    """Resolve the assistant and thread, then start the turn (409 while the thread answers)."""
    spec = find_agent(body.assistant_id)
    message = check_message(settings, turn_message(body))
    options = await _options(turns.store, owner, body)
    thread = await _thread(turns.store, owner, thread_id, body)
    try:
        await _bind(turns.store, owner, thread, spec, options)
        # `TurnBusyError` (409) while the thread answers, `ServerBusyError` (503) at the cap
        return Run(thread, spec, await turns.start(thread, message, tap=tap))
    except Exception:
        if thread_id is None:  # a stateless run's own thread does not outlive a refusal
            await turns.store.delete_thread(owner, thread.id)
        raise


def _keep(task: asyncio.Task[Any]) -> None:
    _background.add(task)
    task.add_done_callback(_background.discard)


async def _drain(run: Run) -> ErrorEvent | None:
    """Wait for the run's end (its journal row final); the error that failed it, if any."""
    error = None
    async for event in run.running.events():
        if isinstance(event, ErrorEvent):
            error = event
    return error if run.turn.status != DONE else None


async def final_values(turns: Turns, thread: Thread, turn: Turn) -> dict[str, Any]:
    """What `wait` and `join` answer: the thread's values after the run (with its pending
    `__interrupt__`), or `__error__` for a run that failed."""
    if turn.status != DONE:
        message = turn.answer or "실행이 끝나지 못했습니다."
        return {"__error__": {"error": turn.status, "message": message}}
    state = await threads.state_at(turns, thread, None)
    values: dict[str, Any] = state["values"]
    if state["interrupts"]:
        values["__interrupt__"] = state["interrupts"]
    return values


def _cleanup(
    turns: Turns, owner: str, run: Run, stateless: bool, body: RunCreate
) -> Callable[[], Awaitable[None]]:
    """What happens after the run: a stateless run's thread is deleted unless kept."""

    async def after() -> None:
        if stateless and body.on_completion != "keep":
            with contextlib.suppress(HTTPException):
                await delete_thread(run.thread.id, owner, turns.store, turns)

    return after


async def _closing_values(turns: Turns, run: Run, modes: list[str]) -> dict[str, Any] | None:
    """For `values` from an agent whose state keeps no messages (the task agent): the thread's
    values after the run, with the conversation from the journal, so a chat UI shows it."""
    if "values" not in modes or "messages" in getattr(run.spec.state, "__annotations__", {}):
        return None
    if run.turn.status != DONE:
        return None
    return await final_values(turns, run.thread, run.turn)


def _location(run: Run) -> dict[str, str]:
    return {"Content-Location": f"/threads/{run.thread.id}/runs/{run.turn.id}"}


async def stream_run(
    turns: Turns, settings: Settings, owner: str, thread_id: str | None, body: RunCreate
) -> Any:
    """Start a run and stream it as SSE (`metadata` first, `end` last)."""
    modes = requested(body.stream_mode)
    queue: asyncio.Queue[tuple[str, Any] | None] = asyncio.Queue()
    tap = Tap(graph_modes(modes), lambda mode, data: queue.put_nowait((mode, data)))
    run = await start(turns, settings, owner, thread_id, body, tap)
    after = _cleanup(turns, owner, run, thread_id is None, body)

    async def ended() -> tuple[ErrorEvent | None, dict[str, Any] | None]:
        try:
            failure = await _drain(run)
            return failure, await _closing_values(turns, run, modes)
        finally:
            await after()
            queue.put_nowait(None)

    finished = asyncio.create_task(ended())
    _keep(finished)
    encoder = Encoder(modes)

    async def frames() -> AsyncIterator[str]:
        yield frame({"run_id": run.turn.id, "thread_id": run.thread.id, "attempt": 1}, "metadata")
        while (item := await queue.get()) is not None:
            for text in encoder.frames(*item):
                yield text
        failure, closing = await finished
        if closing is not None:
            yield frame(closing, "values")
        if failure:
            yield frame({"error": failure.code, "message": failure.content}, "error")
        yield frame({"run_id": run.turn.id, "status": run.public()["status"]}, "end")

    return sse_response(frames(), _location(run))


async def wait_run(
    turns: Turns, settings: Settings, owner: str, thread_id: str | None, body: RunCreate
) -> Any:
    """Start a run and answer its final values."""
    run = await start(turns, settings, owner, thread_id, body)
    await _drain(run)
    values = await final_values(turns, run.thread, run.turn)
    await _cleanup(turns, owner, run, thread_id is None, body)()
    return values


async def background_run(
    turns: Turns, settings: Settings, owner: str, thread_id: str | None, body: RunCreate
) -> dict[str, Any]:
    """Start a run that goes on without the client; the `Run` at once."""
    run = await start(turns, settings, owner, thread_id, body)
    after = _cleanup(turns, owner, run, thread_id is None, body)

    async def finish() -> None:
        await _drain(run)
        await after()

    _keep(asyncio.create_task(finish()))
    return run.public(body.metadata)


Starter = Callable[[Turns, Settings, str, str | None, RunCreate], Awaitable[Any]]


def _routes(suffix: str, starter: Starter, summary: str) -> None:
    """A run route on a thread (`/threads/{id}/runs…`) and its stateless twin (`/runs…`)."""

    async def on_thread(
        thread_id: str, body: RunCreate, owner: Owner, turns: TurnsDep, settings: SettingsDep
    ) -> Any:
        return await starter(turns, settings, owner, thread_id, body)

    async def stateless(
        body: RunCreate, owner: Owner, turns: TurnsDep, settings: SettingsDep
    ) -> Any:
        return await starter(turns, settings, owner, None, body)

    on_thread.__doc__ = starter.__doc__
    stateless.__doc__ = f"{starter.__doc__} Stateless: on a thread of its own, deleted afterwards unless `on_completion` is `keep`."
    name = starter.__name__
    router.add_api_route(
        f"/threads/{{thread_id}}/runs{suffix}",
        on_thread,
        methods=["POST"],
        name=name,
        summary=f"{summary} (LangGraph)",
    )
    router.add_api_route(
        f"/runs{suffix}",
        stateless,
        methods=["POST"],
        name=f"{name}_stateless",
        summary=f"대화 없이 {summary} (LangGraph)",
    )


_routes("/stream", stream_run, "실행하고 스트리밍")
_routes("/wait", wait_run, "실행하고 결과 기다리기")
_routes("", background_run, "백그라운드 실행")


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
