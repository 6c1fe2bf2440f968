"""What an agent is to the rest of Dure: how to build it, feed it a message and read its answer."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph.state import CompiledStateGraph

from dure.llm import ModelSet
from dure.settings import Settings
from dure.sources import Source


@dataclass
class AgentContext:
    """What an agent graph is built with: settings, models by role, checkpointer, options."""

    settings: Settings
    models: ModelSet
    checkpointer: BaseCheckpointSaver | None = None
    options: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class AgentSpec:
    """How to build, feed and read one agent."""

    name: str
    title: str
    build: Callable[[AgentContext], CompiledStateGraph]
    make_input: Callable[[str, AgentContext], dict[str, Any]]
    output: Callable[[dict[str, Any]], tuple[str, list[Source]]]
