"""One turn as telemetry: a span per turn, graph node, LLM call and tool call, and the metrics.

A `TurnObserver` is a LangChain callback handler attached to one turn beside the
`UsageTracker`, so it sees the same runs: every graph node and chat-model call, whatever the
agent. A node is the run LangGraph names after it (`langgraph_node` = its run name); an LLM
call belongs to the node of its `langgraph_node` metadata, as in `done.usage.by_node`. Tools
run through `ToolRegistry.run`, which reports each call here (`observe_tool`); its span hangs
under the node that ran it. Telemetry never fails a turn: this handler's errors are logged.
"""

from __future__ import annotations

import contextlib
import threading
import time
from contextvars import ContextVar, Token
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.outputs import LLMResult

from dure.tags import TOOL_LLM_TAG
from dure.telemetry import metrics, tracing
from dure.usage import Usage, token_counts

if TYPE_CHECKING:
    from opentelemetry.trace import Span

    from dure.events.types import Event
    from dure.tools.base import ToolResult

_current: ContextVar[TurnObserver | None] = ContextVar("dure_turn_observer", default=None)


@dataclass
class _Run:
    """A run inside the turn: the node it belongs to and the span that parents its children."""

    node: str
    span: Span | None
    started: float
    own: bool = False  # a node's run: it opened `span`, and ends it


@dataclass
class _Call:
    node: str
    role: str
    started: float
    span: Span | None


def _model(params: dict[str, Any], meta: dict[str, Any]) -> str:
    path = params.get("model_path")
    return str(
        params.get("model")
        or params.get("model_name")
        or (Path(path).name if path else None)
        or meta.get("ls_model_name")
        or params.get("_type", "unknown")
    )


def _provider(params: dict[str, Any], meta: dict[str, Any]) -> str:
    kind = str(params.get("_type", ""))
    if kind == "dure-llama-cpp":
        return "llama_cpp"
    if "openai" in kind:
        return "openai"
    return str(meta.get("ls_provider") or kind or "unknown")


class TurnObserver(BaseCallbackHandler):
    """Spans and metrics of one turn of `agent` on `thread_id`."""

    run_inline = True

    def __init__(self, agent: str, thread_id: str, *, capture_content: bool = False) -> None:
        self.agent = agent
        self.thread_id = thread_id
        self.capture_content = capture_content
        self.tracer = tracing.tracer()
        self.span: Span | None = None
        self._lock = threading.Lock()
        self._runs: dict[UUID, _Run] = {}
        self._calls: dict[UUID, _Call] = {}
        self._started = time.perf_counter()
        self._last: Event | None = None
        self._done: Event | None = None

    def start(self) -> Token[TurnObserver | None]:
        """The turn begins: its span opens, and tools report here; returns what `close` takes."""
        self._started = time.perf_counter()
        metrics.TURNS_IN_PROGRESS.labels(self.agent).inc()
        if self.tracer is not None:
            self.span = self.tracer.start_span(
                f"invoke_agent {self.agent}",
                attributes={
                    "gen_ai.operation.name": "invoke_agent",
                    "gen_ai.agent.name": self.agent,
                    "gen_ai.conversation.id": self.thread_id,
                },
            )
        return _current.set(self)

    def _parent(self, run_id: UUID | None) -> _Run:
        found = self._runs.get(run_id) if run_id else None
        return found or _Run("-", self.span, self._started)

    def _child(
        self,
        name: str,
        parent: Span | None,
        attrs: dict[str, Any],
        *,
        client: bool = False,
        start_time: int | None = None,
    ) -> Span | None:
        """A span under `parent` (under the turn's when None); None while tracing is off."""
        if self.tracer is None:
            return None
        from opentelemetry import trace

        return self.tracer.start_span(
            name,
            context=trace.set_span_in_context(parent) if parent is not None else None,
            kind=trace.SpanKind.CLIENT if client else trace.SpanKind.INTERNAL,
            attributes=attrs,
            start_time=start_time,
        )

    # -- graph nodes

    def on_chain_start(
        self,
        serialized: dict[str, Any] | None,
        inputs: Any,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        node = (metadata or {}).get("langgraph_node")
        with self._lock:
            parent = self._parent(parent_run_id)
            if node is None or kwargs.get("name") != node or parent.node == node:
                # the graph itself, a branch or a runnable inside a node: as its parent
                self._runs[run_id] = _Run(parent.node, parent.span, parent.started)
                return
            step = (metadata or {}).get("langgraph_step", -1)
            span = self._child(node, parent.span, {"dure.node": node, "dure.step": step})
            self._runs[run_id] = _Run(node, span, time.perf_counter(), own=True)

    def _end_run(self, run_id: UUID, error: BaseException | None = None) -> None:
        with self._lock:
            run = self._runs.pop(run_id, None)
        if run is None or not run.own:
            return
        metrics.NODE_SECONDS.labels(self.agent, run.node).observe(time.perf_counter() - run.started)
        if run.span is not None:
            from langgraph.errors import GraphBubbleUp

            if error is not None and not isinstance(error, GraphBubbleUp):  # not an interrupt
                _failed(run.span, type(error).__name__)
            run.span.end()

    def on_chain_end(self, outputs: Any, *, run_id: UUID, **kwargs: Any) -> None:
        self._end_run(run_id)

    def on_chain_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        self._end_run(run_id, error)

    # -- LLM calls

    def on_chat_model_start(
        self,
        serialized: dict[str, Any],
        messages: list[list[Any]],
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        meta = metadata or {}
        params = kwargs.get("invocation_params") or {}
        node = meta.get("langgraph_node") or "-"
        role = str(meta.get("dure_role") or "-")
        model = _model(params, meta)
        with self._lock:
            parent = self._parent(parent_run_id)
        attrs: dict[str, Any] = {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": _provider(params, meta),
            "gen_ai.request.model": model,
            "dure.node": node,
            "dure.llm.role": role,
            "dure.llm.by_tool": TOOL_LLM_TAG in (tags or []),
        }
        for key in ("max_tokens", "temperature"):
            if isinstance(params.get(key), int | float):
                attrs[f"gen_ai.request.{key}"] = params[key]
        span = self._child(f"chat {model}", parent.span, attrs, client=True)
        if span is not None and self.capture_content and messages:
            span.set_attribute("gen_ai.input.messages", tracing.messages(messages[0]))
        with self._lock:
            self._calls[run_id] = _Call(node, role, time.perf_counter(), span)

    def on_llm_end(self, response: LLMResult, *, run_id: UUID, **kwargs: Any) -> None:
        with self._lock:
            call = self._calls.pop(run_id, None)
        if call is None:
            return
        prompt, completion, cached = token_counts(response)
        if cached:
            prompt = completion = 0  # nothing was spent
        self._count_call(call, "cached" if cached else "ok")
        if prompt or completion:
            metrics.LLM_TOKENS.labels(self.agent, call.node, "input").inc(prompt)
            metrics.LLM_TOKENS.labels(self.agent, call.node, "output").inc(completion)
        if call.span is None:
            return
        call.span.set_attributes(
            {
                "gen_ai.usage.input_tokens": prompt,
                "gen_ai.usage.output_tokens": completion,
                "dure.llm.cache_hit": cached,
            }
        )
        gens = [g for batch in response.generations for g in batch]
        message = getattr(gens[0], "message", None) if gens else None
        served = (getattr(message, "response_metadata", None) or {}).get("model_name")
        if served:
            call.span.set_attribute("gen_ai.response.model", str(served))
        if self.capture_content and message is not None:
            call.span.set_attribute("gen_ai.output.messages", tracing.messages([message]))
        call.span.end()

    def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        with self._lock:
            call = self._calls.pop(run_id, None)
        if call is None:
            return
        self._count_call(call, "error")
        if call.span is not None:
            _failed(call.span, type(error).__name__)
            call.span.end()

    def _count_call(self, call: _Call, outcome: str) -> None:
        metrics.LLM_CALLS.labels(self.agent, call.node, call.role, outcome).inc()
        seconds = time.perf_counter() - call.started
        metrics.LLM_SECONDS.labels(self.agent, call.node).observe(seconds)

    # -- tools

    def tool(self, name: str, args: dict[str, Any], result: ToolResult, started: float) -> None:
        """A tool call that began at `started` (a `perf_counter`) ended with `result`."""
        _count_tool(self.agent, name, result)
        if self.tracer is None:
            return
        with self._lock:
            parent = self._parent(_config_run_id())
        span = self._child(
            f"execute_tool {name}",
            parent.span,
            {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": name,
                "gen_ai.tool.type": "function",
                "dure.node": parent.node,
                "dure.tool.ok": result.ok,
            },
            start_time=time.time_ns() - int((time.perf_counter() - started) * 1e9),
        )
        if span is None:
            return
        if self.capture_content:
            span.set_attribute("gen_ai.tool.call.arguments", tracing.content(args))
            span.set_attribute("gen_ai.tool.call.result", tracing.content(result.content))
        if not result.ok:
            _failed(span, "tool_error")
        span.end()

    # -- the turn's end

    def saw(self, event: Event) -> None:
        """An event the turn yielded (its ending decides the outcome)."""
        if event.type == "done":
            self._done = event
        else:
            self._last = event

    def close(self, token: Token[TurnObserver | None]) -> None:
        """The turn is over (or was stopped): count it and end every span still open."""
        with contextlib.suppress(ValueError):  # closed from another context (a dropped stream)
            _current.reset(token)
        done = self._done
        if done is None:
            outcome = "cancelled"
        elif self._last is not None and self._last.type == "error":
            outcome = str(getattr(self._last, "code", "internal"))
        else:
            outcome = "waiting" if getattr(done, "waiting", False) else "ok"
        metrics.TURNS.labels(self.agent, outcome).inc()
        metrics.TURN_SECONDS.labels(self.agent).observe(time.perf_counter() - self._started)
        metrics.TURNS_IN_PROGRESS.labels(self.agent).dec()
        if self.span is None:
            return
        with self._lock:
            open_spans = [r.span for r in self._runs.values() if r.own] + [
                c.span for c in self._calls.values()
            ]
            self._runs.clear()
            self._calls.clear()
        for span in open_spans:
            if span is not None:
                _failed(span, "not_finished")
                span.end()
        usage: Usage | None = getattr(done, "usage", None)
        if usage is not None:
            self.span.set_attributes(
                {
                    "gen_ai.usage.input_tokens": usage.prompt_tokens,
                    "gen_ai.usage.output_tokens": usage.completion_tokens,
                    "dure.usage.llm_calls": usage.llm_calls,
                    "dure.usage.cache_hits": usage.cache_hits,
                }
            )
        self.span.set_attribute("dure.turn.outcome", outcome)
        if outcome not in ("ok", "waiting"):
            _failed(self.span, outcome)
        self.span.end()


def current_observer() -> TurnObserver | None:
    """The observer of the turn running in this context, if any."""
    return _current.get()


def observe_tool(name: str, args: dict[str, Any], result: ToolResult, started: float) -> None:
    """Count (and trace, inside a traced turn) one tool call; a tool run outside a turn is
    counted under agent '-'."""
    observer = _current.get()
    if observer is not None:
        observer.tool(name, args, result, started)
    else:
        _count_tool("-", name, result)


def _count_tool(agent: str, name: str, result: ToolResult) -> None:
    metrics.TOOL_CALLS.labels(agent, name, "ok" if result.ok else "error").inc()
    metrics.TOOL_SECONDS.labels(agent, name).observe(result.elapsed_ms / 1000)


def _config_run_id() -> UUID | None:
    """The run a tool is called from: the innermost run of LangGraph's current config."""
    from langgraph.config import get_config

    try:
        callbacks = get_config().get("callbacks")
    except RuntimeError:  # not inside a graph
        return None
    return getattr(callbacks, "parent_run_id", None)


def _failed(span: Span, kind: str) -> None:
    """Mark `span` failed with the error's type only (its message may quote the user)."""
    from opentelemetry.trace import Status, StatusCode

    span.set_attribute("error.type", kind)
    span.set_status(Status(StatusCode.ERROR))
