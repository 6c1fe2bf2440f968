"""What the assistant's nodes work with: settings, models by role, tools, what to search."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dure.agent import AgentContext
from dure.llm import ModelSet
from dure.mcp.client import with_mcp
from dure.settings import Settings
from dure.tools.approval import Where
from dure.tools.base import ToolRegistry
from dure.tools.documents import searched_collection

#: The agent's name (settings such as `approvals` are keyed by it).
AGENT_NAME = "assistant"


@dataclass(frozen=True)
class Deps:
    """Built once per graph. `options`: `collection` (to search), `documents_collection` (the
    owner's added documents: the server names the key's own), `retriever`, `tools` (tests)."""

    settings: Settings
    models: ModelSet
    tools: ToolRegistry
    options: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_context(cls, ctx: AgentContext) -> Deps:
        """`options["tools"]` when given (tests inject stand-ins), else the shared tools; then
        the MCP servers' tools listed for this turn (`dure.mcp.client`)."""
        tools = ctx.options.get("tools")
        if tools is None:
            from dure.tools.registry import default_registry

            tools = default_registry(ctx.settings)
        tools = ToolRegistry(with_mcp(ctx, [tools.get(n) for n in tools.names()]))
        return cls(ctx.settings, ctx.models, tools, ctx.options)

    @property
    def where(self) -> Where:
        """Where the turn runs (`local` / `server` / `shared`: `dure.tools.approval`)."""
        where: Where = self.options.get("where", "local")
        return where

    def collection(self) -> str | None:
        """The collection this thread searches: the run's option, else the settings, else the
        documents the owner added (`dure documents add --kind document`) when there are any.

        Blocking (it may look at the store): call it off the event loop."""
        return searched_collection(self.settings, self.options)
