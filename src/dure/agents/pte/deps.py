"""What the plan-then-execute nodes work with: settings, models by role, the allowed tools."""

from __future__ import annotations

from dataclasses import dataclass

from dure.agent import AgentContext
from dure.llm import ModelSet
from dure.mcp.client import with_mcp
from dure.settings import Settings
from dure.tools.approval import Where
from dure.tools.base import ToolRegistry
from dure.tools.documents import documents_tool
from dure.tools.summarize import summarize_tool

#: The agent's name (settings such as `approvals` are keyed by it).
AGENT_NAME = "pte"

#: The tools a plan may name (its allow-list); a plan naming any other tool fails closed.
PLAN_TOOLS = (
    "web_search",
    "get_weather",
    "calculator",
    "search_wikipedia",
    "get_current_datetime",
    "search_documents",
    "summarize",
)


@dataclass(frozen=True)
class Deps:
    """Built once per graph."""

    settings: Settings
    models: ModelSet
    tools: ToolRegistry
    #: Where the turn runs (`local` / `server` / `shared`: `dure.tools.approval`).
    where: Where = "local"

    @classmethod
    def from_context(cls, ctx: AgentContext) -> Deps:
        """`options["tools"]` when given (tests inject stand-ins), else the shared registry
        with `summarize` (backed by the `fast` model) and `search_documents` (the owner's
        documents, `dure.tools.documents`), restricted to `PLAN_TOOLS`;
        a tool the installation lacks is simply not offered. Then the MCP servers' tools
        listed for this turn (`dure.mcp.client`)."""
        tools = ctx.options.get("tools")
        if tools is None:
            from dure.tools.registry import default_registry

            shared = default_registry(ctx.settings)
            # A new registry, so the shared one (cached, used by other agents) is untouched.
            own = {
                "summarize": summarize_tool(lambda: ctx.models("fast")),
                "search_documents": documents_tool(ctx.settings, ctx.options),
            }
            tools = ToolRegistry(
                shared.get(n) if n in shared else own[n]
                for n in PLAN_TOOLS
                if n in shared or n in own
            )
        tools = ToolRegistry(with_mcp(ctx, [tools.get(n) for n in tools.names()]))
        return cls(ctx.settings, ctx.models, tools, ctx.options.get("where", "local"))
