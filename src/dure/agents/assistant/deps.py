"""What the assistant's nodes work with: settings, models by role, tools, what to search."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dure.agent import AgentContext
from dure.llm import ModelSet
from dure.settings import Settings
from dure.tools.base import ToolRegistry


@dataclass(frozen=True)
class Deps:
    """Built once per graph. `options`: `collection` (to search), `retriever`, `tools` (tests)."""

    settings: Settings
    models: ModelSet
    tools: ToolRegistry
    options: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_context(cls, ctx: AgentContext) -> Deps:
        """`options["tools"]` when given (tests inject stand-ins), else the shared tools."""
        tools = ctx.options.get("tools")
        if tools is None:
            from dure.tools.registry import default_registry

            tools = default_registry(ctx.settings)
        return cls(ctx.settings, ctx.models, tools, ctx.options)

    @property
    def collection(self) -> str | None:
        """The collection this thread searches: the run's option, else the settings."""
        return self.options.get("collection") or self.settings.assistant.collection

    @property
    def has_retriever(self) -> bool:
        """Whether the rag route has anything to search."""
        return bool(self.collection) or self.options.get("retriever") is not None
