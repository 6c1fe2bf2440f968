"""One memory step: when the window is full, summarise its older part and drop it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, RemoveMessage

from dure.memory.summarizer import carry_facts, summarize_messages
from dure.memory.window import (
    KEEP_RECENT,
    MAX_MESSAGES,
    MAX_SUMMARIES,
    add_summary_to_window,
    cut_index,
    needs_summary,
    split_summaries,
)


@dataclass(frozen=True)
class Compaction:
    """The result of a memory step: the new summary window and the messages it replaces."""

    summary: str
    removed: list[BaseMessage]
    kept: int

    def removals(self) -> list[BaseMessage]:
        """A `RemoveMessage` per summarised message (for the `add_messages` reducer)."""
        return [RemoveMessage(id=m.id) for m in self.removed if m.id]


async def compact(
    model: BaseChatModel,
    messages: Sequence[BaseMessage],
    summary: str | None,
    *,
    max_messages: int = MAX_MESSAGES,
    keep_recent: int = KEEP_RECENT,
    max_summaries: int = MAX_SUMMARIES,
) -> Compaction | None:
    """Summarise all but the recent messages if the window is full; None when nothing to do.

    The facts of a summary sliding out of the window are carried into the new one. An empty
    summary keeps every message: dropping them would lose the facts altogether.
    """
    if not needs_summary(messages, max_messages):
        return None
    cut = cut_index(messages, keep_recent)
    if cut == 0:
        return None
    old = list(messages[:cut])
    new_summary = await summarize_messages(model, old, summary)
    if not new_summary:
        return None
    # Summaries about to slide out of the window hand their facts to the new one.
    kept = split_summaries(summary)
    leaving = kept[: max(0, len(kept) + 1 - max_summaries)]
    new_summary = carry_facts(leaving, new_summary)
    return Compaction(
        summary=add_summary_to_window(summary, new_summary, max_summaries),
        removed=old,
        kept=len(messages) - cut,
    )
