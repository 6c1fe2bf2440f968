"""The contract Q&A agent (docs/agents/contract.md).

Scope check → previous-turn check → planner (tool calling) → sequential or parallel
executor → sufficiency evaluator (at most `contract.max_iterations` rounds) → streamed answer
citing its articles. A thread is bound to one contract and optionally a standard contract.

    dure ask --agent contract --contract 계약서.md [--standard 표준.md] "제5조 내용이 뭐야?"
"""

from __future__ import annotations

from dure.agent import AgentSpec
from dure.agents.contract.deps import Deps
from dure.agents.contract.graph import EDGES, NODES
from dure.agents.contract.state import ContractState, make_input, output

AGENT = AgentSpec(
    name="contract",
    title="계약서 Q&A (조항 인용 답변)",
    state=ContractState,
    deps=Deps.from_context,
    nodes=NODES,
    edges=EDGES,
    make_input=make_input,
    output=output,
)

__all__ = ["AGENT"]
