"""The agent registry. Each agent package exposes `AGENT: AgentSpec` and registers by name.

Built-in agents are listed here; other packages add theirs through the `dure.agents`
entry-point group (value: `module:AGENT`).
"""

from __future__ import annotations

import importlib
from importlib.metadata import entry_points

from dure.agent import AgentContext, AgentSpec
from dure.errors import DureError

__all__ = ["AgentContext", "AgentSpec", "UnknownAgentError", "agent_names", "get_agent"]

_BUILTIN: dict[str, str] = {}


class UnknownAgentError(DureError, LookupError):
    """An agent name nobody registered."""

    def __init__(self, name: str, known: list[str]) -> None:
        super().__init__(f"알 수 없는 에이전트입니다: {name!r} (사용 가능: {', '.join(known)})")
        self.name = name
        self.known = known


def _entry_points() -> dict[str, str]:
    return {ep.name: ep.value for ep in entry_points(group="dure.agents")}


def agent_names() -> list[str]:
    """Every registered agent name."""
    return sorted({**_BUILTIN, **_entry_points()})


def get_agent(name: str) -> AgentSpec:
    """The agent called `name`, or `UnknownAgentError` listing the known ones."""
    target = _BUILTIN.get(name) or _entry_points().get(name)
    if target is None:
        raise UnknownAgentError(name, agent_names())
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr or "AGENT")
