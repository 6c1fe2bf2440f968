"""Small graphs and helpers shared by the core unit tests."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from dure.events import Event, stream_events
from dure.sources import Source
from dure.usage import UsageTracker

Node = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]


class LineState(TypedDict, total=False):
    """State of the test graphs: a question and whatever the nodes write."""

    question: str
    answer: str
    notes: list[str]


def line_graph(*nodes: tuple[str, Node], checkpointer: Any = None) -> CompiledStateGraph:
    """Nodes run one after another, in the given order."""
    graph = StateGraph(LineState)
    previous = START
    for name, fn in nodes:
        graph.add_node(name, fn)
        graph.add_edge(previous, name)
        previous = name
    graph.add_edge(previous, END)
    return graph.compile(checkpointer=checkpointer or InMemorySaver())


def answer_of(values: dict[str, Any]) -> tuple[str, list[Source]]:
    """The `output` of the test graphs."""
    return values.get("answer", ""), []


async def collect(events: AsyncIterator[Event]) -> list[Event]:
    """Every event of a turn, in order."""
    return [e async for e in events]


async def run_turn(
    graph: CompiledStateGraph,
    question: str = "질문",
    *,
    thread_id: str = "t",
    tracker: UsageTracker | None = None,
) -> list[Event]:
    """One turn of a test graph through the real events entry point."""
    return await collect(
        stream_events(
            graph, {"question": question}, thread_id=thread_id, output=answer_of, tracker=tracker
        )
    )
