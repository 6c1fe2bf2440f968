"""The agent registry. Each agent package exposes `AGENT: AgentSpec` and registers by name.

Built-in agents are listed here; other packages add theirs through the `dure.agents`
entry-point group (value: `module:AGENT`). Without packaging, the setting `extra_agents`
(`DURE_EXTRA_AGENTS="name=module:ATTR,other=pkg.mod:AGENT"`) plugs in agents from any
importable module (the module must be on `PYTHONPATH`).
"""

from __future__ import annotations

import importlib
from functools import lru_cache
from importlib.metadata import entry_points

from dure.agent import AgentContext, AgentSpec
from dure.errors import DureError
from dure.settings import Settings

__all__ = ["AgentContext", "AgentSpec", "UnknownAgentError", "agent_names", "get_agent"]

BUILTIN: dict[str, str] = {
    "assistant": "dure.agents.assistant:AGENT",
    "contract": "dure.agents.contract:AGENT",
    "pte": "dure.agents.pte:AGENT",
    "tasks": "dure.agents.tasks:AGENT",
}


class UnknownAgentError(DureError, LookupError):
    """An agent name nobody registered."""

    def __init__(self, name: str, known: list[str]) -> None:
        super().__init__(f"알 수 없는 에이전트입니다: {name!r} (사용 가능: {', '.join(known)})")
        self.name = name
        self.known = known


@lru_cache(maxsize=1)  # scanning installed packages costs ~15 ms; it is done once a process
def _entry_points() -> dict[str, str]:
    return {ep.name: ep.value for ep in entry_points(group="dure.agents")}


def _extra_agents() -> dict[str, str]:
    """Agents named in `DURE_EXTRA_AGENTS` (`name=module:ATTR`, comma-separated)."""
    extra: dict[str, str] = {}
    # Read afresh (not the process-wide cached settings): a test or an embedding application
    # may name agents after the settings were first read.
    for item in filter(None, (i.strip() for i in Settings().extra_agents.split(","))):
        name, sep, target = (part.strip() for part in item.partition("="))
        if not (name and sep and target):
            raise DureError(
                f"DURE_EXTRA_AGENTS 항목 형식이 잘못되었습니다: {item!r} (이름=모듈:속성)"
            )
        extra[name] = target
    return extra


def _registered() -> dict[str, str]:
    return {**BUILTIN, **_entry_points(), **_extra_agents()}


def agent_names() -> list[str]:
    """Every registered agent name."""
    return sorted(_registered())


def get_agent(name: str) -> AgentSpec:
    """The agent called `name`, or `UnknownAgentError` listing the known ones."""
    registered = _registered()
    target = registered.get(name)
    if target is None:
        raise UnknownAgentError(name, sorted(registered))
    module, _, attr = target.partition(":")
    try:
        return getattr(importlib.import_module(module), attr or "AGENT")
    except (ImportError, AttributeError) as e:
        if name not in _extra_agents():  # a built-in that fails to import is a bug: show it
            raise
        raise DureError(f"에이전트 {name!r}을(를) 불러올 수 없습니다 ({target}): {e}") from e
