"""How a decision about the user's words was made: the tier that settled it."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import ParamSpec, Protocol, TypeVar

from dure.events import Thinking
from dure.usage import DecidedBy, current_tracker

__all__ = ["DecidedBy", "decision_event", "report", "reported"]

#: How a decision was made, as the user sees it in a `thinking` event.
_LABEL: dict[DecidedBy, str] = {"rule": "규칙", "embedding": "예문 유사도", "llm": "LLM"}


def decision_event(step: str, decided_by: DecidedBy, verdict: str, reason: str) -> Thinking:
    """The `thinking` line that reports a decision: "예문 유사도 판단: rag — 이유"."""
    return Thinking(
        step=step, content=f"{_LABEL[decided_by]} 판단: {verdict} — {reason}", decided_by=decided_by
    )


def report(decision: str, tier: DecidedBy) -> None:
    """Note in the running turn's usage (`done.usage.decided_by`) how `decision` was made."""
    tracker = current_tracker()
    if tracker is not None:
        tracker.record_decision(decision, tier)


class _Decided(Protocol):
    @property
    def decided_by(self) -> DecidedBy: ...


P = ParamSpec("P")
R = TypeVar("R", bound=_Decided)


def reported(decision: str) -> Callable[[Callable[P, Awaitable[R]]], Callable[P, Awaitable[R]]]:
    """Decorate a decision so the running turn's usage notes the tier that made it."""

    def wrap(decide: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
        @functools.wraps(decide)
        async def run(*args: P.args, **kwargs: P.kwargs) -> R:
            result = await decide(*args, **kwargs)
            report(decision, result.decided_by)
            return result

        return run

    return wrap
