"""The task agent's graph: a planner, then an orchestrator over the plan's steps.

See docs/agents/tasks.md for the diagram (generated from this graph). Every step node returns
to the orchestrator, which picks the next step that is not done.
"""

from __future__ import annotations

from langgraph.graph import END, START

from dure.agent import Branch, Edge, Node
from dure.agents.tasks import nodes
from dure.agents.tasks.deps import Deps
from dure.agents.tasks.state import TaskState

NODES: dict[str, Node] = {
    "planner": nodes.planner,
    "orchestrator": nodes.orchestrator,
    "qa_agent": nodes.qa_agent,
    "wait_user": nodes.wait_user,
    "confirm": nodes.confirm,
    "worker": nodes.worker,
    "final_answer": nodes.final_answer,
}

#: The orchestrator's branch for each step kind (and for a step waiting on the user).
STEP_BRANCHES = {
    "qa": "qa_agent",
    "waiting_user": "wait_user",
    "confirm": "confirm",
    "worker": "worker",
}


def route(state: TaskState, deps: Deps) -> str:
    """The orchestrator's branch: the current step's kind, `waiting_user`, or `done`."""
    i = state.get("current")
    if i is None:
        return "done"
    step = state["steps"][i]
    return "waiting_user" if step["status"] == "waiting_user" else step["kind"]


EDGES: list[Edge | Branch[TaskState, Deps]] = [
    Edge(START, "planner"),
    Edge("planner", "orchestrator"),
    Branch("orchestrator", route, {**STEP_BRANCHES, "done": "final_answer"}),
    *(Edge(node, "orchestrator") for node in STEP_BRANCHES.values()),
    Edge("final_answer", END),
]
