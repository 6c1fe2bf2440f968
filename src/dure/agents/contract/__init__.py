"""The contract Q&A agent (seeds 000 + 001).

Scope check → previous-turn check → planner (tool calling) → sequential or parallel
executor → sufficiency evaluator (at most `contract.max_iterations` rounds) → streamed answer
citing its articles. A thread is bound to one contract and optionally a standard contract.

    dure ask --agent contract --contract 계약서.md [--standard 표준.md] "제5조 내용이 뭐야?"
"""

from __future__ import annotations

from typing import Any

from dure.agent import AgentContext, AgentSpec
from dure.agents.contract.graph import build_graph
from dure.agents.contract.library import index_documents
from dure.agents.contract.state import initial_state
from dure.sources import Source, parse_sources

__all__ = ["AGENT", "build_graph", "make_input", "output"]


def make_input(message: str, ctx: AgentContext) -> dict[str, Any]:
    """One turn's input: the message, and the contract files indexed (first use only)."""
    contract_id, standard_id = index_documents(ctx)
    return initial_state(message, contract_id, standard_id)


def output(values: dict[str, Any]) -> tuple[str, list[Source]]:
    """The final answer and its cited articles."""
    return values.get("final_response", ""), parse_sources(values.get("sources"))


AGENT = AgentSpec(
    name="contract",
    title="계약서 Q&A (조항 인용 답변)",
    build=build_graph,
    make_input=make_input,
    output=output,
)
