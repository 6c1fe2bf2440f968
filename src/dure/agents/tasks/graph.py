"""The task agent's graph (seed 003): a planner, then an orchestrator over the plan's steps.

START → planner → orchestrator ─┬→ qa_agent ───→ orchestrator   (gate passed, or question set)
                                ├→ wait_user ──→ orchestrator   (interrupt: the user's reply)
                                ├→ confirm ────→ orchestrator   (interrupt: yes / no / change)
                                ├→ worker ─────→ orchestrator   (one worker agent per step)
                                └→ final_answer → END           (no step left)
"""

from __future__ import annotations

from functools import partial

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from dure.agent import AgentContext
from dure.agents.tasks import nodes
from dure.agents.tasks.state import TaskState

STEP_NODES = ("qa_agent", "wait_user", "confirm", "worker")


def build_graph(ctx: AgentContext) -> CompiledStateGraph:
    """The compiled graph, checkpointed with `ctx.checkpointer`."""
    graph = StateGraph(TaskState)
    graph.add_node("planner", partial(nodes.planner, ctx=ctx))
    graph.add_node("orchestrator", nodes.orchestrator)
    graph.add_node("qa_agent", partial(nodes.qa_agent, ctx=ctx))
    graph.add_node("wait_user", partial(nodes.wait_user, ctx=ctx))
    graph.add_node("confirm", partial(nodes.confirm, ctx=ctx))
    graph.add_node("worker", partial(nodes.worker, ctx=ctx))
    graph.add_node("final_answer", partial(nodes.final_answer, ctx=ctx))
    graph.add_edge(START, "planner")
    graph.add_edge("planner", "orchestrator")
    graph.add_conditional_edges("orchestrator", nodes.route, [*STEP_NODES, "final_answer"])
    for name in STEP_NODES:
        graph.add_edge(name, "orchestrator")
    graph.add_edge("final_answer", END)
    return graph.compile(checkpointer=ctx.checkpointer)
