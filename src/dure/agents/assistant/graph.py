"""The assistant's graph: its nodes, and its edges named as its spec names them.

See docs/agents/assistant.md for the diagram (generated from this graph).
"""

from __future__ import annotations

from langgraph.graph import END, START

from dure.agent import Branch, Edge, Node
from dure.agents.assistant import nodes
from dure.agents.assistant.deps import Deps
from dure.agents.assistant.state import AssistantState

NODES: dict[str, Node] = {
    "router": nodes.router,
    "rag": nodes.rag,
    "memory": nodes.memory,
    "agent": nodes.agent,
    "tools": nodes.tools,
}


def route_after_router(state: AssistantState, deps: Deps) -> str:
    """`rag` → the rag node; anything else straight to memory."""
    return "rag" if state.get("next_action") == "rag" else "memory"


def route_after_agent(state: AssistantState, deps: Deps) -> str:
    """`tools` → the tools node; otherwise the turn ends."""
    return "tools" if state.get("next_action") == "tools" else "end"


EDGES: list[Edge | Branch[AssistantState, Deps]] = [
    Edge(START, "router"),
    Branch("router", route_after_router, {"rag": "rag", "memory": "memory"}),
    Edge("rag", "memory"),
    Edge("memory", "agent"),
    Branch("agent", route_after_agent, {"tools": "tools", "end": END}),
    Edge("tools", "agent"),
]
