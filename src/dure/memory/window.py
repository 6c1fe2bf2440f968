"""Hybrid memory arithmetic: the message window and the sliding summary window.

`messages` keeps at most `MAX_MESSAGES`; reaching it, all but the `KEEP_RECENT` most recent
are summarised. Summaries are kept as one string, the last `MAX_SUMMARIES` of them joined by
`SUMMARY_SEPARATOR` (oldest first), and shown to the model numbered "[대화 기록 N]".
"""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.messages import BaseMessage, ToolMessage

MAX_MESSAGES = 10
KEEP_RECENT = 5
MAX_SUMMARIES = 3
SUMMARY_SEPARATOR = "\n---SUMMARY_BREAK---\n"


def split_summaries(summary: str | None) -> list[str]:
    """The summaries in a window string, oldest first (empty pieces dropped)."""
    if not summary:
        return []
    return [s.strip() for s in summary.split(SUMMARY_SEPARATOR) if s.strip()]


def add_summary_to_window(
    existing_summary: str | None, new_summary: str, max_summaries: int = MAX_SUMMARIES
) -> str:
    """Append `new_summary`; when more than `max_summaries`, the oldest slide out."""
    summaries = [*split_summaries(existing_summary), new_summary.strip()]
    return SUMMARY_SEPARATOR.join(s for s in summaries[-max_summaries:] if s)


def format_summary_for_prompt(summary: str | None) -> str:
    """The summaries numbered for the system prompt: "[대화 기록 1]\\n…\\n\\n[대화 기록 2]\\n…"."""
    return "\n\n".join(
        f"[대화 기록 {n}]\n{text}" for n, text in enumerate(split_summaries(summary), 1)
    )


def needs_summary(messages: Sequence[BaseMessage], max_messages: int = MAX_MESSAGES) -> bool:
    """Whether the window is full (`max_messages` messages trigger it)."""
    return len(messages) >= max_messages


def cut_index(messages: Sequence[BaseMessage], keep_recent: int = KEEP_RECENT) -> int:
    """Where the kept part starts: about `keep_recent` from the end, never between an AI
    message's tool calls and their tool results (providers reject a tool result whose call
    is gone). The cut moves back to keep the whole exchange; if the exchange is everything,
    forward past its results instead."""
    cut = max(0, len(messages) - keep_recent)
    back = cut
    while back > 0 and isinstance(messages[back], ToolMessage):
        back -= 1
    if back > 0:
        return back
    forward = cut
    while forward < len(messages) and isinstance(messages[forward], ToolMessage):
        forward += 1
    return forward
