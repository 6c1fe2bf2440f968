"""Tool calls as the chunks a streaming chat model yields (every provider streams them alike)."""

from __future__ import annotations

import json
from collections.abc import Iterable

from langchain_core.messages import ToolCall, ToolCallChunk
from langchain_core.messages.tool import tool_call_chunk


def as_tool_call_chunks(calls: Iterable[ToolCall]) -> list[ToolCallChunk]:
    """Whole tool calls as one streamed chunk each (arguments as JSON text, Korean kept)."""
    return [
        tool_call_chunk(
            name=c["name"], args=json.dumps(c["args"], ensure_ascii=False), id=c["id"], index=i
        )
        for i, c in enumerate(calls)
    ]
