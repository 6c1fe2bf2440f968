"""The assistant's state, as seed 002 draws it (plus the sources of the current answer)."""

from __future__ import annotations

from typing import Annotated, Any, TypedDict

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages


class AgentState(TypedDict, total=False):
    """What the checkpointer keeps for a thread.

    `messages` holds the recent window (at most `MAX_MESSAGES`), `summary` the sliding window
    of summaries of older messages, `context` this turn's retrieved documents, `next_action`
    the router's route (`rag`/`agent`) and then the agent's (`tools`/`end`), `sources` the
    citations of this turn's answer as plain dicts (documents and web pages).
    """

    messages: Annotated[list[AnyMessage], add_messages]
    summary: str
    context: str | None
    next_action: str | None
    sources: list[dict[str, Any]]
