"""A run's stream as LangGraph's clients read it: one SSE event per item of each requested
stream mode, named as the SDK names them, between `metadata` (first) and `end` (last).

- `values`, `updates`, `custom` (Dure's typed events: thinking, tool_selected, sources, …),
  `events` (LangChain's callback events), `tasks`, `checkpoints`, `debug`: the items as
  LangGraph produces them, in JSON;
- `messages-tuple`: each token chunk as it decodes, `[message, metadata]` (the metadata names
  the node, `langgraph_node`), SSE event `messages`;
- `messages`: the same chunks merged per message: `messages/metadata` once, then
  `messages/partial` (or `messages/complete` for a message that came whole).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from fastapi import HTTPException
from langchain_core.messages import BaseMessage, BaseMessageChunk, message_chunk_to_message

from dure.server.history import jsonable
from dure.server.protocol.wire import state_values
from dure.server.sse import frame

#: Each protocol stream mode and the LangGraph stream mode it is made from.
GRAPH_MODE = {
    "values": "values",
    "updates": "updates",
    "custom": "custom",
    "messages": "messages",
    "messages-tuple": "messages",
    "events": "events",
    "tasks": "tasks",
    "checkpoints": "checkpoints",
    "debug": "debug",
}


def requested(stream_mode: str | Sequence[str] | None) -> list[str]:
    """The stream modes a run asked for (`values` by default); 422 for an unknown one."""
    modes = [stream_mode] if isinstance(stream_mode, str) else list(stream_mode or ["values"])
    unknown = [m for m in modes if m not in GRAPH_MODE]
    if unknown:
        known = ", ".join(GRAPH_MODE)
        raise HTTPException(422, f"지원하지 않는 stream_mode입니다: {unknown} (가능: {known})")
    return modes or ["values"]


def graph_modes(modes: Sequence[str]) -> frozenset[str]:
    """What the graph must stream for `modes`."""
    return frozenset(GRAPH_MODE[m] for m in modes)


class Encoder:
    """Turns the graph's (mode, data) items into the SSE events of the requested modes."""

    def __init__(self, modes: Sequence[str]) -> None:
        self.modes = set(modes)
        self._messages: dict[str, BaseMessage] = {}

    def frames(self, mode: str, data: Any) -> list[str]:
        """The SSE events one graph stream item becomes."""
        if mode == "messages":
            message, metadata = data
            out = []
            if "messages-tuple" in self.modes:
                out.append(frame([jsonable(message), jsonable(metadata)], "messages"))
            if "messages" in self.modes:
                out.extend(self._merged(message, metadata))
            return out
        if mode == "values":
            return [frame(state_values(data), "values")]
        if mode == "custom" and hasattr(data, "to_json"):  # Dure's typed events, as everywhere
            return [frame(data.to_json(), "custom")]
        return [frame(jsonable(data), mode)]

    def _merged(self, message: BaseMessage, metadata: Any) -> list[str]:
        key = message.id or ""
        out = []
        known = self._messages.get(key)
        if known is None:
            out.append(frame({key: {"metadata": jsonable(metadata)}}, "messages/metadata"))
        if isinstance(message, BaseMessageChunk):
            merged = known + message if isinstance(known, BaseMessageChunk) else message
            self._messages[key] = merged
            out.append(frame([jsonable(message_chunk_to_message(merged))], "messages/partial"))
        else:
            self._messages[key] = message
            out.append(frame([jsonable(message)], "messages/complete"))
        return out


#: What ends a run's feed: the error that failed it, and closing values (`_closing_values`).
Ending = tuple[Any, dict[str, Any] | None]


@dataclass
class Feed:
    """A run's stream items, kept while it runs so that a client can join its stream later
    (`join_stream`) and read it from the start. The last item is its `Ending`."""

    modes: list[str]
    items: list[tuple[str, Any]] = field(default_factory=list)
    ending: Ending | None = None
    _more: asyncio.Event = field(default_factory=asyncio.Event)

    def add(self, mode: str, data: Any) -> None:
        """The graph's next stream item."""
        self.items.append((mode, data))
        self._wake()

    def end(self, ending: Ending) -> None:
        """The run is over."""
        self.ending = ending
        self._wake()

    def _wake(self) -> None:
        self._more.set()
        self._more = asyncio.Event()

    async def read(self) -> AsyncIterator[tuple[str, Any]]:
        """Every item from the first, as they come, until the run is over."""
        start = 0
        while True:
            while start < len(self.items):
                start += 1
                yield self.items[start - 1]
            if self.ending is not None:
                return
            await self._more.wait()
