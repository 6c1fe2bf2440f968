"""The general assistant (docs/agents/assistant.md): router → RAG → summarising memory →
tool-calling agent; threads survive restarts."""

from __future__ import annotations

from dure.agent import AgentSpec
from dure.agents.assistant.deps import AGENT_NAME, Deps
from dure.agents.assistant.graph import EDGES, NODES
from dure.agents.assistant.state import AssistantState, make_input, output
from dure.mcp.client import preparer

AGENT = AgentSpec(
    name=AGENT_NAME,
    title="범용 어시스턴트 (문서 검색 · 도구 · 대화 기억)",
    state=AssistantState,
    deps=Deps.from_context,
    nodes=NODES,
    edges=EDGES,
    make_input=make_input,
    output=output,
    prepare=preparer(AGENT_NAME),
)

__all__ = ["AGENT"]
