"""Typed events and the one entry point that streams any agent graph as events."""

from dure.events.emit import emit
from dure.events.stream import Tap, stream_events, stream_turn
from dure.events.types import (
    Done,
    ErrorEvent,
    EvaluationResult,
    Event,
    Generating,
    Planning,
    Question,
    Queued,
    Slots,
    SourcesEvent,
    Thinking,
    Token,
    ToolResultEvent,
    ToolSelected,
    parse_event,
)

__all__ = [
    "Done",
    "ErrorEvent",
    "EvaluationResult",
    "Event",
    "Generating",
    "Planning",
    "Queued",
    "Question",
    "Slots",
    "SourcesEvent",
    "Tap",
    "Thinking",
    "Token",
    "ToolResultEvent",
    "ToolSelected",
    "emit",
    "parse_event",
    "stream_events",
    "stream_turn",
]
