"""Conversation memory (docs/agents/assistant.md): recent messages plus sliding summaries.

Reusable by any agent whose state has `messages` and `summary`: see `compact` for the whole
step (decide, summarise the old part, remove it with `RemoveMessage`).
"""

from dure.memory.compact import Compaction, compact
from dure.memory.summarizer import (
    MAX_CARRIED_FACTS,
    SUMMARY_SYSTEM_PROMPT,
    carry_facts,
    fact_lines,
    render_transcript,
    summarize_messages,
)
from dure.memory.window import (
    KEEP_RECENT,
    MAX_MESSAGES,
    MAX_SUMMARIES,
    SUMMARY_SEPARATOR,
    add_summary_to_window,
    cut_index,
    format_summary_for_prompt,
    needs_summary,
    split_summaries,
)

__all__ = [
    "KEEP_RECENT",
    "MAX_CARRIED_FACTS",
    "MAX_MESSAGES",
    "MAX_SUMMARIES",
    "SUMMARY_SEPARATOR",
    "SUMMARY_SYSTEM_PROMPT",
    "Compaction",
    "add_summary_to_window",
    "carry_facts",
    "compact",
    "cut_index",
    "fact_lines",
    "format_summary_for_prompt",
    "needs_summary",
    "render_transcript",
    "split_summaries",
    "summarize_messages",
]
