"""The contract agent's graph: its nodes, and its edges named as its spec names them.

See docs/agents/contract.md for the diagram (generated from this graph), the state and the
LLM-call table.
"""

from __future__ import annotations

from langgraph.graph import END, START

from dure.agent import Branch, Edge, Node
from dure.agents.contract import nodes
from dure.agents.contract.deps import Deps
from dure.agents.contract.state import ContractState, last_evaluation

NODES: dict[str, Node] = {
    "scope_validator": nodes.scope_validator,
    "check_previous_context": nodes.check_previous_context,
    "planner": nodes.planner,
    "executor": nodes.executor,
    "parallel_executor": nodes.parallel_executor,
    "evaluator": nodes.evaluator,
    "respond": nodes.respond,
}


def route_scope(state: ContractState, deps: Deps) -> str:
    """`out_of_scope` (the turn already has its message) or `in_scope`."""
    return "out_of_scope" if state.get("final_response") else "in_scope"


def should_execute_tools(state: ContractState, deps: Deps) -> str:
    """The planner's branch: no_tools | skip_to_evaluator | execute_parallel | _sequential."""
    if state.get("all_tools_skipped"):
        return "skip_to_evaluator"
    tools = state.get("next_tools") or []
    if not tools:
        return "no_tools"
    parallel = len(tools) > 1 and deps.settings.contract.max_parallel_tools > 1
    return "execute_parallel" if parallel else "execute_sequential"


def should_continue(state: ContractState, deps: Deps) -> str:
    """The last evaluator decision's action: `continue` (plan again) or `finish`."""
    return "continue" if last_evaluation(state).get("action") == "continue" else "finish"


EDGES: list[Edge | Branch[ContractState, Deps]] = [
    Edge(START, "scope_validator"),
    Branch(
        "scope_validator",
        route_scope,
        {"in_scope": "check_previous_context", "out_of_scope": END},
    ),
    Edge("check_previous_context", "planner"),
    Branch(
        "planner",
        should_execute_tools,
        {
            "no_tools": "respond",
            "skip_to_evaluator": "evaluator",
            "execute_sequential": "executor",
            "execute_parallel": "parallel_executor",
        },
    ),
    Edge("executor", "evaluator"),
    Edge("parallel_executor", "evaluator"),
    Branch("evaluator", should_continue, {"continue": "planner", "finish": "respond"}),
    Edge("respond", END),
]
