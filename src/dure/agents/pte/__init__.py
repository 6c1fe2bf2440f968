"""Plan-then-execute agent (seed 004): intent → JSON plan → LLM-free executor → answer."""

from dure.agent import AgentSpec
from dure.agents.pte.graph import build_graph, make_input, output

AGENT = AgentSpec(
    name="pte",
    title="계획-실행 에이전트",
    build=build_graph,
    make_input=make_input,
    output=output,
)

__all__ = ["AGENT"]
