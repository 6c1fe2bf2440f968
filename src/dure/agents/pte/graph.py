"""The plan-then-execute graph: its nodes, and its four conditional edges.

See docs/agents/pte.md for the diagram (generated from this graph). Every branch to the error
handler is taken on `error_code`, never on the message text.
"""

from __future__ import annotations

from langgraph.graph import END, START

from dure.agent import Branch, Edge, Node
from dure.agents.pte import nodes
from dure.agents.pte.deps import Deps
from dure.agents.pte.state import PTEState

NODES: dict[str, Node] = {
    "intent_classifier": nodes.intent_classifier,
    "planner": nodes.planner,
    "executor": nodes.executor,
    "replanner": nodes.replanner,
    "final_answer": nodes.final_answer,
    "error_handler": nodes.error_handler,
}


def after_intent_classifier(state: PTEState, deps: Deps) -> str:
    """Tools needed → planner; otherwise straight to the answer (a failed classification fails closed)."""
    if state.get("error_code"):
        return "error"
    return "needs_tool" if state.get("needs_tool", True) else "no_tool"


def after_planner(state: PTEState, deps: Deps) -> str:
    """A bad plan stops the run; an empty plan is answered without tools."""
    if state.get("error_code"):
        return "error"
    return "plan" if state.get("plan") else "no_plan"


def after_executor(state: PTEState, deps: Deps) -> str:
    """A failed step of the current plan → replanner; steps left → executor; else answer.

    Steps run concurrently and are recorded in plan order, so a failure need not be last:
    every record of the current round (the plan since the last re-plan) is checked. The
    executor drains the plan unless a step fails, so `steps_left` is the loop kept for a plan
    handed over part-done.
    """
    past = state.get("past_steps") or []
    if not past:
        return "done"
    current = state.get("replan_count", 0)
    if any(r["status"] == "failure" for r in past if r.get("round", 0) == current):
        return "step_failed"
    return "steps_left" if state.get("plan") else "done"


def after_replanner(state: PTEState, deps: Deps) -> str:
    """Re-plan limit or a bad revised plan → error handler; otherwise run the new plan."""
    return "error" if state.get("error_code") else "new_plan"


EDGES: list[Edge | Branch[PTEState, Deps]] = [
    Edge(START, "intent_classifier"),
    Branch(
        "intent_classifier",
        after_intent_classifier,
        {"needs_tool": "planner", "no_tool": "final_answer", "error": "error_handler"},
    ),
    Branch(
        "planner",
        after_planner,
        {"plan": "executor", "no_plan": "final_answer", "error": "error_handler"},
    ),
    Branch(
        "executor",
        after_executor,
        {"step_failed": "replanner", "steps_left": "executor", "done": "final_answer"},
    ),
    Branch("replanner", after_replanner, {"new_plan": "executor", "error": "error_handler"}),
    Edge("final_answer", END),
    Edge("error_handler", END),
]
