"""The contract agent's LangGraph workflow, edge for edge as seed 001 draws it.

scope_validator ──out_of_scope──▶ END
      │ in_scope
check_previous_context → planner ──no_tools──────────▶ respond → END
                            │ ──skip_to_evaluator──▶ evaluator
                            │ ──execute_sequential─▶ executor ──────────▶ evaluator
                            └ ──execute_parallel───▶ parallel_executor ─▶ evaluator
evaluator ──continue──▶ planner ;  evaluator ──finish──▶ respond
"""

from __future__ import annotations

from functools import partial

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from dure.agent import AgentContext
from dure.agents.contract import nodes
from dure.agents.contract.library import open_library
from dure.agents.contract.state import ContractState


def build_graph(ctx: AgentContext) -> CompiledStateGraph:
    """The compiled contract agent, checkpointed with `ctx.checkpointer`."""
    deps = nodes.Deps(ctx.settings, ctx.models, open_library(ctx))
    g = StateGraph(ContractState)
    for name in (
        "scope_validator",
        "check_previous_context",
        "planner",
        "executor",
        "parallel_executor",
        "evaluator",
        "respond",
    ):
        g.add_node(name, partial(getattr(nodes, name), deps=deps))

    g.add_edge(START, "scope_validator")
    g.add_conditional_edges(
        "scope_validator",
        nodes.route_scope,
        {"in_scope": "check_previous_context", "out_of_scope": END},
    )
    g.add_edge("check_previous_context", "planner")
    g.add_conditional_edges(
        "planner",
        partial(nodes.should_execute_tools, max_parallel=ctx.settings.contract.max_parallel_tools),
        {
            "no_tools": "respond",
            "skip_to_evaluator": "evaluator",
            "execute_sequential": "executor",
            "execute_parallel": "parallel_executor",
        },
    )
    g.add_edge("executor", "evaluator")
    g.add_edge("parallel_executor", "evaluator")
    g.add_conditional_edges(
        "evaluator", nodes.should_continue, {"continue": "planner", "finish": "respond"}
    )
    g.add_edge("respond", END)
    return g.compile(checkpointer=ctx.checkpointer, name="contract")
