"""The assistant's graph, edge for edge as seed 002 draws it.

__start__ → router ─┬─ rag → memory ─┐
                    └─ memory ───────┴→ agent ─┬─ __end__
                                         ↑     └─ tools
                                         └──────────┘
"""

from __future__ import annotations

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from dure.agent import AgentContext
from dure.agents.assistant.nodes import Nodes
from dure.agents.assistant.state import AgentState
from dure.tools.base import ToolRegistry


def route_after_router(state: AgentState) -> str:
    """`rag` → the rag node; anything else straight to memory."""
    return "rag" if state.get("next_action") == "rag" else "memory"


def route_after_agent(state: AgentState) -> str:
    """`tools` → the tools node; otherwise the turn ends (seed's `route_after_agent`)."""
    return "tools" if state.get("next_action") == "tools" else END


def tool_registry(ctx: AgentContext) -> ToolRegistry:
    """`options["tools"]` when given (tests inject stand-ins), else the seven shared tools."""
    injected = ctx.options.get("tools")
    if injected is not None:
        return injected
    from dure.tools.registry import default_registry

    return default_registry(ctx.settings)


def build_graph(ctx: AgentContext) -> CompiledStateGraph:
    """The compiled assistant graph on the context's checkpointer."""
    nodes = Nodes(ctx, tool_registry(ctx))
    g = StateGraph(AgentState)
    g.add_node("router", nodes.router)
    g.add_node("rag", nodes.rag)
    g.add_node("memory", nodes.memory)
    g.add_node("agent", nodes.agent)
    g.add_node("tools", nodes.tools)

    g.add_edge(START, "router")
    g.add_conditional_edges("router", route_after_router, ["rag", "memory"])
    g.add_edge("rag", "memory")
    g.add_edge("memory", "agent")
    g.add_conditional_edges("agent", route_after_agent, ["tools", END])
    g.add_edge("tools", "agent")
    return g.compile(checkpointer=ctx.checkpointer)
