"""The plan-then-execute agent (docs/agents/pte.md): intent → JSON plan → LLM-free executor →
re-planner → answer, failing closed with an audit trail."""

from __future__ import annotations

from dure.agent import AgentSpec
from dure.agents.pte.deps import AGENT_NAME, Deps
from dure.agents.pte.graph import EDGES, NODES
from dure.agents.pte.state import PTEState, make_input, output
from dure.mcp.client import preparer

AGENT = AgentSpec(
    name=AGENT_NAME,
    title="계획-실행 에이전트",
    state=PTEState,
    deps=Deps.from_context,
    nodes=NODES,
    edges=EDGES,
    make_input=make_input,
    output=output,
    prepare=preparer(AGENT_NAME),
)

__all__ = ["AGENT"]
