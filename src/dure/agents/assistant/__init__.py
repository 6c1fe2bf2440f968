"""General assistant (seed 002): router → RAG → summarising memory → tool-calling agent."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, HumanMessage

from dure.agent import AgentContext, AgentSpec
from dure.agents.assistant.graph import build_graph
from dure.sources import Source, parse_sources


def make_input(message: str, ctx: AgentContext) -> dict[str, Any]:
    """A new turn: the user's message; this turn's context, route and sources start empty."""
    return {
        "messages": [HumanMessage(message)],
        "context": None,
        "next_action": None,
        "sources": [],
    }


def output(values: dict[str, Any]) -> tuple[str, list[Source]]:
    """The last AI answer of the thread and the sources it drew on."""
    answer = next(
        (
            m.text
            for m in reversed(values.get("messages", []))
            if isinstance(m, AIMessage) and not m.tool_calls
        ),
        "",
    )
    sources = parse_sources(values.get("sources"))
    return answer, sources


AGENT = AgentSpec(
    name="assistant",
    title="범용 어시스턴트 (문서 검색 · 도구 · 대화 기억)",
    build=build_graph,
    make_input=make_input,
    output=output,
)

__all__ = ["AGENT", "build_graph"]
