"""Usage accounting and per-turn budgets.

A `UsageTracker` is a LangChain callback handler attached to one turn. It sees every
chat-model call inside the graph, attributes it to the LangGraph node that made it, and
checks the turn's budget *before* each request (as pydantic-ai's `UsageLimits` do).
"""

from __future__ import annotations

import logging
import threading
import time
import warnings
from contextvars import ContextVar, Token
from typing import Any, Literal
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.outputs import LLMResult
from pydantic import BaseModel, Field

from dure.tags import TOOL_LLM_TAG

#: How a decision about the user's words was made: `rule` (a near-certain rule), `embedding`
#: (the example banks, multilingual-e5) or `llm` (one bounded model call).
DecidedBy = Literal["rule", "embedding", "llm"]


class NodeUsage(BaseModel):
    """What one node spent."""

    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_ms: float = 0.0
    cache_hits: int = 0


class Usage(BaseModel):
    """What one turn spent. `llm_calls` excludes cache hits and tools' own LLM calls."""

    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cache_hits: int = 0
    cache_misses: int = 0
    tool_llm_calls: int = 0
    latency_ms: float = 0.0
    by_node: dict[str, NodeUsage] = Field(default_factory=dict)
    #: How each decision about the user's words was made this turn (`scope` → `rule`, …).
    decided_by: dict[str, DecidedBy] = Field(default_factory=dict)


class BudgetExceeded(RuntimeError):
    """A turn reached its LLM-call or token budget."""

    def __init__(self, what: str, limit: int) -> None:
        super().__init__(f"{what} budget of {limit} reached")
        self.what = what
        self.limit = limit


class _QuietBudgetStop(logging.Filter):
    """LangChain logs every callback error before re-raising it; a budget stop is no error."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "BudgetExceeded(" not in record.getMessage()


logging.getLogger("langchain_core.callbacks.manager").addFilter(_QuietBudgetStop())
# Stopping in `on_chat_model_start` leaves the other handlers' start coroutines of that call
# unawaited (LangChain builds them all first); the call never runs, so nothing is lost.
warnings.filterwarnings(
    "ignore", message="coroutine 'ahandle_event' was never awaited", category=RuntimeWarning
)

_current: ContextVar[UsageTracker | None] = ContextVar("dure_usage_tracker", default=None)


def current_tracker() -> UsageTracker | None:
    """The tracker of the turn running in this context, if any."""
    return _current.get()


class UsageTracker(BaseCallbackHandler):
    """Counts LLM calls, tokens and latency per node for one turn, and enforces budgets."""

    raise_error = True  # a budget stop must reach the runner, not be logged and ignored
    run_inline = True

    def __init__(self, max_llm_calls: int | None = None, max_tokens: int | None = None) -> None:
        self.usage = Usage()
        self.max_llm_calls = max_llm_calls
        self.max_tokens = max_tokens
        self._lock = threading.Lock()
        self._runs: dict[UUID, tuple[str, float, bool]] = {}
        self._cached_runs: set[UUID] = set()

    def activate(self) -> Token[UsageTracker | None]:
        """Make this the current tracker (for the LLM cache); returns a reset token."""
        return _current.set(self)

    @staticmethod
    def deactivate(token: Token[UsageTracker | None]) -> None:
        """Undo `activate`."""
        _current.reset(token)

    def record_cache(self, hit: bool) -> None:
        """Called by the LLM cache on each lookup."""
        with self._lock:
            if hit:
                self.usage.cache_hits += 1
            else:
                self.usage.cache_misses += 1

    def record_decision(self, decision: str, tier: DecidedBy) -> None:
        """Called by the understanding layer: how `decision` was made."""
        with self._lock:
            self.usage.decided_by[decision] = tier

    def _check_budget(self) -> None:
        u = self.usage
        if self.max_llm_calls is not None and u.llm_calls >= self.max_llm_calls:
            raise BudgetExceeded("llm_calls", self.max_llm_calls)
        if self.max_tokens is not None and u.prompt_tokens + u.completion_tokens >= self.max_tokens:
            raise BudgetExceeded("tokens", self.max_tokens)

    def on_chat_model_start(
        self,
        serialized: dict[str, Any],
        messages: list[list[Any]],
        *,
        run_id: UUID,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        node = (metadata or {}).get("langgraph_node") or "-"
        by_tool = TOOL_LLM_TAG in (tags or [])
        with self._lock:
            if not by_tool:
                self._check_budget()
            self._runs[run_id] = (node, time.perf_counter(), by_tool)

    def on_llm_end(self, response: LLMResult, *, run_id: UUID, **kwargs: Any) -> None:
        with self._lock:
            node, started, by_tool = self._runs.pop(run_id, ("-", time.perf_counter(), False))
            self._count(node, started, by_tool, *token_counts(response))

    def _count(
        self, node: str, started: float, by_tool: bool, prompt: int, completion: int, cached: bool
    ) -> None:
        """Add one finished call (the lock held)."""
        elapsed = (time.perf_counter() - started) * 1000
        nu = self.usage.by_node.setdefault(node, NodeUsage())
        if by_tool:
            self.usage.tool_llm_calls += 1
        elif cached:
            nu.cache_hits += 1
        else:
            self.usage.llm_calls += 1
            nu.llm_calls += 1
        if not cached:
            self.usage.prompt_tokens += prompt
            self.usage.completion_tokens += completion
            nu.prompt_tokens += prompt
            nu.completion_tokens += completion
        nu.latency_ms += elapsed
        self.usage.latency_ms += elapsed

    def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        # A call that failed still took its time, and its tokens when the error carries them
        # (a looping tool reply): the turn's usage must not read "0 calls" after minutes.
        with self._lock:
            run = self._runs.pop(run_id, None)
            if run is None:
                return
            node, started, by_tool = run
            spent = getattr(error, "usage", None) or {}
            self._count(
                node,
                started,
                by_tool,
                spent.get("input_tokens", 0),
                spent.get("output_tokens", 0),
                cached=False,
            )


def token_counts(response: LLMResult) -> tuple[int, int, bool]:
    """(prompt, completion, from_cache) for one chat-model result."""
    prompt = completion = 0
    cached = False
    for gens in response.generations:
        for gen in gens:
            info = gen.generation_info or {}
            cached = cached or bool(info.get("dure_cached"))
            meta = getattr(getattr(gen, "message", None), "usage_metadata", None)
            if meta:
                prompt += int(meta.get("input_tokens", 0))
                completion += int(meta.get("output_tokens", 0))
    if not prompt and not completion and response.llm_output:
        tu = response.llm_output.get("token_usage") or {}
        prompt = int(tu.get("prompt_tokens", 0))
        completion = int(tu.get("completion_tokens", 0))
    return prompt, completion, cached
