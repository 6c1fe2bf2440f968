"""Runs: a run is one of Dure's journaled turns, started through the same turn machinery as a
message (one at a time per thread, crash-safe, the server's cap on concurrent turns).

Its input is the conversation's new messages (the last user message is the turn) or
`command.resume`, the answer to the agent's pending question. Streamed (`…/runs/stream`),
waited for (`…/runs/wait`) or in the background (`…/runs`, then `join`); without a thread
(`/runs/…`) it runs on a thread of its own that is deleted afterwards (`on_completion`).
While it runs, its stream items are kept in a feed, so a client can join its stream from the
start (`control.py`).
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
from dure.server.deps import Owner, SettingsDep, TurnsDep
from dure.server.documents import THREAD_OPTIONS, check_options
from dure.server.protocol import threads, wire
from dure.server.protocol.assistants import find_agent
from dure.server.protocol.stream import Encoder, Feed, graph_modes, requested
from dure.server.routes.threads import check_message, delete_thread, owned_thread
from dure.server.running import RunningTurn
from dure.server.sse import frame, sse_response
from dure.server.store import DONE, Store, Thread, Turn
from dure.server.turns import Turns
from dure.settings import Settings

log = logging.getLogger(__name__)
router = APIRouter(tags=["langgraph"])

#: Tasks that outlive their request (following a run to its end, deleting its thread).
_background: set[asyncio.Task[Any]] = set()
#: The runs of this worker that are going on, with their feeds (for `join_stream`).
live_runs: dict[str, tuple[Run, Feed]] = {}


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


def location(run: Run) -> dict[str, str]:
    return {"Content-Location": f"/threads/{run.thread.id}/runs/{run.turn.id}"}


def _follow(
    turns: Turns, owner: str, run: Run, stateless: bool, body: RunCreate, feed: Feed
) -> None:
    """Keep the run's feed (for `join_stream`) until the run ends, then its ending; a stateless
    run's thread goes afterwards."""
    live_runs[run.turn.id] = (run, feed)
    after = _cleanup(turns, owner, run, stateless, body)

    async def follow() -> None:
        try:
            failure = await _drain(run)
            feed.end((failure, await _closing_values(turns, run, feed.modes)))
        finally:
            if feed.ending is None:
                feed.end((None, None))
            live_runs.pop(run.turn.id, None)
            await after()

    _keep(asyncio.create_task(follow()))


async def run_frames(run: Run, feed: Feed, modes: list[str]) -> AsyncIterator[str]:
    """The run's SSE events for `modes`, from its first item (`metadata` first, `end` last)."""
    encoder = Encoder(modes)
    wanted = graph_modes(modes)
    yield frame({"run_id": run.turn.id, "thread_id": run.thread.id, "attempt": 1}, "metadata")
    async for mode, data in feed.read():
        if mode in wanted:
            for text in encoder.frames(mode, data):
                yield text
    failure, closing = feed.ending or (None, None)
    if closing is not None and "values" in modes:
        yield frame(closing, "values")
    if failure:
        yield frame({"error": failure.code, "message": failure.content}, "error")
    yield frame({"run_id": run.turn.id, "status": run.public()["status"]}, "end")


async def _fed(
    turns: Turns, settings: Settings, owner: str, thread_id: str | None, body: RunCreate
) -> tuple[Run, Feed]:
    """Start a run whose stream items are kept in a feed while it runs."""
    feed = Feed(requested(body.stream_mode))
    run = await start(
        turns, settings, owner, thread_id, body, Tap(graph_modes(feed.modes), feed.add)
    )
    _follow(turns, owner, run, thread_id is None, body, feed)
    return run, feed


async def stream_run(
    turns: Turns, settings: Settings, owner: str, thread_id: str | None, body: RunCreate
) -> Any:
    """Start a run and stream it as SSE (`metadata` first, `end` last)."""
    run, feed = await _fed(turns, settings, owner, thread_id, body)
    return sse_response(run_frames(run, feed, feed.modes), location(run))


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
    """Start a run that goes on without the client (join it, or its stream); the `Run` at
    once."""
    run, _ = await _fed(turns, settings, owner, thread_id, body)
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
