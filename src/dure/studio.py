"""Dure's four graphs for LangGraph's own tooling (`langgraph.json`, `langgraph dev`, Studio).

Each function builds its agent's graph with the settings from the environment (`DURE_*`,
`dure.toml`) and the configured chat models, without a checkpointer: the LangGraph server
that loads it keeps the threads. Dure's own server does not use this module.
"""

from __future__ import annotations

from langgraph.graph.state import CompiledStateGraph

from dure.agent import AgentContext
from dure.agents import get_agent
from dure.llm import ModelSet
from dure.settings import get_settings


def graph(name: str) -> CompiledStateGraph:
    """The compiled graph of agent `name`."""
    settings = get_settings()
    return get_agent(name).bind(AgentContext(settings, ModelSet(settings))).graph


def contract() -> CompiledStateGraph:
    """Contract Q&A (seed 000/001)."""
    return graph("contract")


def assistant() -> CompiledStateGraph:
    """The general assistant (seed 002)."""
    return graph("assistant")


def tasks() -> CompiledStateGraph:
    """The slot-filling task agent (seed 003)."""
    return graph("tasks")


def pte() -> CompiledStateGraph:
    """Plan-then-execute (seed 004)."""
    return graph("pte")
