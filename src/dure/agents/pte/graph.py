"""The plan-then-execute graph; the four conditional edges read like seed 004's diagram.

```
START → intent_classifier   needs_tool → planner | no tool → final_answer | error → error_handler
planner                     plan → executor | no plan → final_answer | error → error_handler
executor                    step failed → replanner | steps left → executor | done → final_answer
replanner                   new plan → executor | limit or bad plan → error_handler
final_answer → END          error_handler → END
```
"""

from __future__ import annotations

from functools import partial
from typing import Any

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from dure.agent import AgentContext
from dure.agents.pte import nodes
from dure.agents.pte.state import PTEState, turn_input
from dure.agents.pte.toolset import agent_tools
from dure.sources import Source


def after_intent_classifier(state: PTEState) -> str:
    """Tools needed → planner; otherwise straight to the answer (a failed classification fails closed)."""
    if state.get("error"):
        return "error_handler"
    if state.get("needs_tool", True):
        return "planner"
    return "final_answer"


def after_planner(state: PTEState) -> str:
    """A bad plan stops the run; an empty plan is answered without tools."""
    if state.get("error"):
        return "error_handler"
    if state.get("plan"):
        return "executor"
    return "final_answer"


def after_executor(state: PTEState) -> str:
    """A failed step of the current plan → replanner; steps left → executor; else answer.

    The seed looks at the last record only. Steps here run concurrently and are recorded in
    plan order, so a failure need not be last: every record of the current round (the plan
    since the last re-plan) is checked. The executor drains the plan unless a step fails, so
    `executor → executor` is the seed's loop kept for a plan handed over part-done.
    """
    past = state.get("past_steps") or []
    if not past:
        return "final_answer"
    current = state.get("replan_count", 0)
    if any(r["status"] == "failure" for r in past if r.get("round", 0) == current):
        return "replanner"
    if state.get("plan"):
        return "executor"
    return "final_answer"


def after_replanner(state: PTEState) -> str:
    """Re-plan limit or a bad revised plan → error handler; otherwise run the new plan."""
    if state.get("error"):
        return "error_handler"
    return "executor"


def build_graph(ctx: AgentContext) -> CompiledStateGraph:
    """The compiled graph, with the agent's tools and `ctx.checkpointer`."""
    deps = nodes.Deps(settings=ctx.settings, models=ctx.models, tools=agent_tools(ctx))
    g = StateGraph(PTEState)
    for name in (
        "intent_classifier",
        "planner",
        "executor",
        "replanner",
        "final_answer",
        "error_handler",
    ):
        g.add_node(name, partial(getattr(nodes, name), deps=deps))
    g.add_edge(START, "intent_classifier")
    g.add_conditional_edges(
        "intent_classifier",
        after_intent_classifier,
        ["planner", "final_answer", "error_handler"],
    )
    g.add_conditional_edges("planner", after_planner, ["executor", "final_answer", "error_handler"])
    g.add_conditional_edges("executor", after_executor, ["replanner", "executor", "final_answer"])
    g.add_conditional_edges("replanner", after_replanner, ["executor", "error_handler"])
    g.add_edge("final_answer", END)
    g.add_edge("error_handler", END)
    return g.compile(checkpointer=ctx.checkpointer, name="pte")


def make_input(message: str, ctx: AgentContext) -> dict[str, Any]:
    """A new turn: the message, the time in Seoul, the tool manifest, per-turn fields reset."""
    return turn_input(message, agent_tools(ctx))


def output(values: dict[str, Any]) -> tuple[str, list[Source]]:
    """The answer and the sources the successful steps returned."""
    return values.get("result") or "", nodes.step_sources(values.get("past_steps") or [])
