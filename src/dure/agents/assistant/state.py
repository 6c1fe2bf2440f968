"""The assistant's state (docs/agents/assistant.md), its input and its output."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, TypedDict

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langgraph.graph.message import add_messages

from dure.agent import Answer, UserTurn
from dure.sources import parse_sources

if TYPE_CHECKING:
    from dure.agents.assistant.deps import Deps


class AssistantState(TypedDict, total=False):
    """What the checkpointer keeps for a thread.

    `messages` holds the recent window (at most `MAX_MESSAGES`), `summary` the sliding window
    of summaries of older messages, `context` this turn's retrieved documents, `next_action`
    the router's route (`rag`/`agent`) and then the agent's (`tools`/`end`), `sources` the
    citations of this turn's answer as plain dicts (documents and web pages).
    """

    messages: Annotated[list[BaseMessage], add_messages]
    summary: str
    context: str | None
    next_action: str | None
    sources: list[dict[str, Any]]


def make_input(turn: UserTurn, deps: Deps) -> AssistantState:
    """A new turn: the user's message (after an explicit previous turn, when one is given);
    this turn's context, route and sources start empty."""
    earlier: list[BaseMessage] = [
        HumanMessage(m["content"]) if m["role"] == "user" else AIMessage(m["content"])
        for m in turn.previous_turn or []
    ]
    return {
        "messages": [*earlier, HumanMessage(turn.message)],
        "context": None,
        "next_action": None,
        "sources": [],
    }


def output(values: AssistantState) -> Answer:
    """The last AI answer of the thread and the sources it drew on."""
    answer = next(
        (
            m.text
            for m in reversed(values.get("messages", []))
            if isinstance(m, AIMessage) and not m.tool_calls
        ),
        "",
    )
    return Answer(answer, parse_sources(values.get("sources")))
