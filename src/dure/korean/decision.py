"""How a decision about the user's words was made: the tier that settled it."""

from __future__ import annotations

from typing import Literal

from dure.usage import current_tracker

#: `rule`: a near-certain rule; `embedding`: the example banks (multilingual-e5);
#: `llm`: one bounded model call.
DecidedBy = Literal["rule", "embedding", "llm"]

#: How a decision was made, as the user sees it in a `thinking` event.
DECIDED_BY_LABEL: dict[DecidedBy, str] = {"rule": "규칙", "embedding": "예문 유사도", "llm": "LLM"}


def report(decision: str, tier: DecidedBy) -> None:
    """Note in the running turn's usage (`done.usage.decided_by`) how `decision` was made."""
    tracker = current_tracker()
    if tracker is not None:
        tracker.record_decision(decision, tier)
