"""Emitting events from inside graph nodes (LangGraph's custom stream)."""

from __future__ import annotations

from langgraph.config import get_stream_writer

from dure.events.types import Event


def emit(event: Event) -> None:
    """Send one event to whoever streams the graph; a no-op outside a stream."""
    try:
        writer = get_stream_writer()
    except RuntimeError:  # called outside a running graph (e.g. a unit test of a node)
        return
    writer(event)
