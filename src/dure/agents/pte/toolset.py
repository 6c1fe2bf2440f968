"""The tools the plan-then-execute agent may plan with (its allow-list)."""

from __future__ import annotations

from dure.agent import AgentContext
from dure.tools.base import ToolRegistry
from dure.tools.summarize import summarize_tool

#: The seed's tools; a plan naming any other tool fails closed.
SEED_TOOLS = (
    "web_search",
    "get_weather",
    "calculator",
    "search_wikipedia",
    "get_current_datetime",
    "summarize",
)


def agent_tools(ctx: AgentContext) -> ToolRegistry:
    """`options["tools"]` when given (tests inject stand-ins), else the shared registry.

    The shared registry gets the `summarize` tool (backed by the `fast` model) and is
    restricted to the seed's tools; a tool the installation lacks is simply not offered.
    """
    injected = ctx.options.get("tools")
    if injected is not None:
        return injected
    from dure.tools.registry import default_registry

    shared = default_registry(ctx.settings)
    # A new registry, so the shared one (possibly cached and used by other agents) is untouched.
    own = {"summarize": summarize_tool(lambda: ctx.models("fast"))}
    return ToolRegistry(
        shared.get(n) if n in shared else own[n] for n in SEED_TOOLS if n in shared or n in own
    )
