"""The task agent (docs/agents/tasks.md): slot filling with a rule-based Q&A gate, then workers.

The gate decides by rules whether every required slot is filled (then no LLM call at all);
the LLM only phrases the one question when something is missing. Intents are data
(`dure.agents.tasks.intents`), slots come from a Korean rule parser (`dure.korean.slots`).
"""

from __future__ import annotations

from dure.agent import AgentSpec
from dure.agents.tasks.deps import Deps
from dure.agents.tasks.graph import EDGES, NODES
from dure.agents.tasks.state import TaskState, make_input, output

AGENT = AgentSpec(
    name="tasks",
    title="작업 도우미 (점심 추천·회의실 예약)",
    state=TaskState,
    deps=Deps.from_context,
    nodes=NODES,
    edges=EDGES,
    make_input=make_input,
    output=output,
)

__all__ = ["AGENT"]
