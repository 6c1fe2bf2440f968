"""The one entry point: stream a compiled agent graph for a thread and a message as events.

Nodes emit typed events through LangGraph's custom stream; answer tokens come from chat-model
calls tagged `ANSWER_TAG` through the messages stream. A pending `interrupt()` on the thread
makes the next message its resume value. Budgets and unexpected failures end the turn with an
`error` event and a `done` that still carries an answer.

A caller that speaks LangGraph's own protocol passes a `Tap`: it also receives the graph's
stream as LangGraph produces it (`values`, `updates`, `messages`, `custom`, and `events` from
`astream_events`), in order, before the typed events made from the same items.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import AIMessage
from langchain_core.runnables import RunnableConfig
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command

from dure.agent import AgentContext, AgentSpec, ChatMessage, UserTurn
from dure.errors import DureError, ErrorCode
from dure.events.types import Done, ErrorEvent, Event, Question, Thinking, Token, parse_event
from dure.sources import Source
from dure.tags import ANSWER_TAG
from dure.telemetry import TurnObserver
from dure.usage import BudgetExceeded, UsageTracker

log = logging.getLogger(__name__)

Output = Callable[[dict[str, Any]], tuple[str, list[Source]]]

BUDGET_MESSAGE = "이번 질문에 쓸 수 있는 처리 한도에 도달해 여기서 답변을 마칩니다. 질문을 더 좁혀 다시 물어봐 주세요."
FAILURE_MESSAGE = "죄송합니다. 답변을 만드는 중에 문제가 생겼습니다. 잠시 후 다시 시도해 주세요."


#: The stream modes the typed events are made from.
OWN_MODES = ("custom", "messages", "updates")


@dataclass(frozen=True)
class Tap:
    """Who else reads the graph's stream: `send(mode, data)` for every item of `modes`.

    `events` in `modes` runs the graph through `astream_events` (LangChain's callback events,
    each sent as it comes); the other modes are LangGraph's `stream_mode`s.
    """

    modes: frozenset[str]
    send: Callable[[str, Any], None]


async def _pairs(
    graph: CompiledStateGraph,
    graph_input: Mapping[str, Any] | Command,
    config: RunnableConfig,
    tap: Tap | None,
) -> AsyncIterator[tuple[str, Any]]:
    """The graph's (mode, data) pairs: ours, and any the tap wants (sent to it first)."""
    wanted = tap.modes if tap else frozenset()
    modes: list[Any] = [*OWN_MODES, *sorted(wanted - {"events", *OWN_MODES})]
    if tap is None or "events" not in wanted:
        async for mode, data in graph.astream(graph_input, config, stream_mode=modes):
            if tap and mode in wanted:
                tap.send(mode, data)
            yield mode, data
        return
    async for event in graph.astream_events(graph_input, config, version="v2", stream_mode=modes):
        tap.send("events", event)
        # The graph's own stream items come as its root run's `on_chain_stream` events.
        if event["event"] == "on_chain_stream" and not event["parent_ids"]:
            mode, data = event["data"]["chunk"]
            if mode in wanted:
                tap.send(mode, data)
            yield mode, data


def _interrupt_text(value: Any) -> str:
    if isinstance(value, dict):
        return str(value.get("question") or value.get("content") or value)
    return str(value)


def _approval(value: Any) -> dict[str, Any] | None:
    return value if isinstance(value, dict) and value.get("kind") == "approval" else None


async def stream_events(
    graph: CompiledStateGraph,
    graph_input: Mapping[str, Any] | Command,
    *,
    thread_id: str,
    output: Output,
    tracker: UsageTracker | None = None,
    recursion_limit: int = 50,
    checkpoint_id: str | None = None,
    tap: Tap | None = None,
    observer: TurnObserver | None = None,
) -> AsyncIterator[Event]:
    """Run one turn of `graph` on `thread_id`, yielding typed events, ending with `done`.

    `checkpoint_id` runs the turn from that checkpoint of the thread instead of its latest
    (the server does so to leave out a turn that was cut off half-way); `tap` also receives
    the graph's own stream (see the module docstring); `observer` traces and counts the turn
    (by default one for the graph's name, message text left out).
    """
    tracker = tracker or UsageTracker()
    observer = observer or TurnObserver(graph.name, thread_id)
    observing = observer.start()
    try:
        async for event in _turn_events(
            graph,
            graph_input,
            thread_id,
            output,
            tracker,
            recursion_limit,
            checkpoint_id,
            tap,
            observer,
        ):
            observer.saw(event)
            yield event
    finally:
        observer.close(observing)


async def _turn_events(
    graph: CompiledStateGraph,
    graph_input: Mapping[str, Any] | Command,
    thread_id: str,
    output: Output,
    tracker: UsageTracker,
    recursion_limit: int,
    checkpoint_id: str | None,
    tap: Tap | None,
    observer: TurnObserver,
) -> AsyncIterator[Event]:
    thread_config: RunnableConfig = {"configurable": {"thread_id": thread_id}}
    pinned = {"checkpoint_id": checkpoint_id} if checkpoint_id else {}
    config: RunnableConfig = {
        "configurable": {"thread_id": thread_id, **pinned},
        "callbacks": [tracker, observer],
        "recursion_limit": recursion_limit,
    }
    token = tracker.activate()
    # With several stream modes LangGraph yields (mode, data) pairs; what `data` is depends on
    # the mode (an event dict, a (message, metadata) pair, a node-updates dict), untyped in v1.
    mode: str
    chunk: Any
    try:
        try:
            async for mode, chunk in _pairs(graph, graph_input, config, tap):
                if mode == "custom":
                    yield chunk if not isinstance(chunk, dict) else parse_event(chunk)
                elif mode == "messages":
                    msg, meta = chunk
                    # Chunks while a model streams; a whole AIMessage when it came from the cache
                    # (LangGraph de-duplicates, so a streamed answer is never sent twice).
                    if (
                        isinstance(msg, AIMessage)
                        and msg.content
                        and ANSWER_TAG in (meta.get("tags") or [])
                    ):
                        yield Token(content=msg.text)
                elif mode == "updates" and "__interrupt__" in chunk:
                    for intr in chunk["__interrupt__"]:
                        yield Question(
                            content=_interrupt_text(intr.value), approval=_approval(intr.value)
                        )
        except BudgetExceeded as e:
            yield ErrorEvent(code=ErrorCode.BUDGET, content=f"처리 한도 초과: {e}")
            yield Done(content=BUDGET_MESSAGE, usage=tracker.usage)
            return
        except DureError as e:  # user-fixable (a missing model file, bad input): say what it is
            yield ErrorEvent(code=e.code, content=str(e))
            yield Done(content=str(e), usage=tracker.usage)
            return
        except Exception:  # the turn ends with a message, never a traceback to the user
            log.exception("turn failed on thread %s", thread_id)
            yield ErrorEvent(code=ErrorCode.INTERNAL, content=FAILURE_MESSAGE)
            yield Done(content=FAILURE_MESSAGE, usage=tracker.usage)
            return
        # The run's own result is the thread's latest checkpoint, whatever it started from.
        snapshot = await graph.aget_state(thread_config)
        if snapshot.interrupts:
            question = _interrupt_text(snapshot.interrupts[0].value)
            yield Done(content=question, usage=tracker.usage, waiting=True)
            return
        answer, sources = output(snapshot.values)
        yield Done(content=answer, sources=sources, usage=tracker.usage)
    finally:
        UsageTracker.deactivate(token)


async def stream_turn(
    agent: AgentSpec,
    ctx: AgentContext,
    thread_id: str,
    message: str,
    *,
    checkpoint_id: str | None = None,
    previous_turn: Sequence[ChatMessage] | None = None,
    tap: Tap | None = None,
) -> AsyncIterator[Event]:
    """One user turn of `agent` on `thread_id`: a new input, or the reply to a pending question.

    `checkpoint_id` (optional) is the checkpoint to continue from instead of the latest;
    `previous_turn` (optional) replaces the previous turn the checkpoint holds; `tap`
    (optional) also receives the graph's own stream.
    """
    limit = ctx.settings.max_message_chars
    if not message.strip() or len(message) > limit:
        reason = (
            "빈 메시지입니다."
            if not message.strip()
            else f"메시지가 너무 깁니다 (최대 {limit:,}자)."
        )
        yield ErrorEvent(code=ErrorCode.BAD_MESSAGE, content=reason)
        yield Done(content=reason)
        return
    if agent.prepare is not None:
        ctx, notes = await agent.prepare(ctx)
        for note in notes:
            yield Thinking(step="prepare", content=note)
    bound = agent.bind(ctx)
    graph = bound.graph
    pinned = {"checkpoint_id": checkpoint_id} if checkpoint_id else {}
    snapshot = await graph.aget_state({"configurable": {"thread_id": thread_id, **pinned}})
    graph_input: Mapping[str, Any] | Command = (
        Command(resume=message)
        if snapshot.interrupts
        else bound.make_input(UserTurn(message, previous_turn))
    )
    tracker = UsageTracker(ctx.settings.max_llm_calls_per_turn, ctx.settings.max_tokens_per_turn)
    capture = ctx.settings.telemetry.capture_content
    async for event in stream_events(
        graph,
        graph_input,
        thread_id=thread_id,
        output=agent.output,
        tracker=tracker,
        checkpoint_id=checkpoint_id,
        tap=tap,
        observer=TurnObserver(agent.name, thread_id, capture_content=capture),
    ):
        yield event
