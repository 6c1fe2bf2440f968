"""The task agent (seed 003): slot filling with a rule-based Q&A gate, then worker agents.

The gate decides by rules whether every required slot is filled (then no LLM call at all);
the LLM only phrases the one question when something is missing. Intents are data
(`dure.agents.tasks.intents`), slots come from a Korean rule parser (`dure.agents.tasks.slots`).
"""

from __future__ import annotations

from typing import Any

from dure.agent import AgentContext, AgentSpec
from dure.agents.tasks.graph import build_graph
from dure.agents.tasks.nodes import turn_now
from dure.sources import Source, parse_sources


def make_input(message: str, ctx: AgentContext) -> dict[str, Any]:
    """A new request (a reply to a pending question resumes the interrupt instead)."""
    return {"user_input": message, "now": turn_now(ctx).isoformat()}


def output(values: dict[str, Any]) -> tuple[str, list[Source]]:
    """The answer and the places or rooms it names."""
    return values.get("answer", ""), parse_sources(values.get("sources"))


AGENT = AgentSpec(
    name="tasks",
    title="작업 도우미 (점심 추천·회의실 예약)",
    build=build_graph,
    make_input=make_input,
    output=output,
)

__all__ = ["AGENT", "build_graph"]
