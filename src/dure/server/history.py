"""A thread as the API shows it: its journal (every turn, with sources and steps) and its state
as the checkpointer holds it at the head (messages, slots, audit trail, pending question).

Both are needed: the journal keeps every turn the user saw, including cut-off ones, while an
agent's state may summarise old messages away (the assistant keeps 5 recent ones).
"""

from __future__ import annotations

import dataclasses
import logging
from datetime import datetime
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langgraph.types import Interrupt
from pydantic import BaseModel

from dure.agents import get_agent
from dure.server import checkpoints
from dure.server.store import Thread
from dure.server.turns import Turns

log = logging.getLogger(__name__)

_ROLES = {HumanMessage: "user", AIMessage: "assistant", SystemMessage: "system"}
#: State fields shown as they are, when an agent has them (the task agent keeps its slots in
#: `conversation`; plan-then-execute its audit trail in `past_steps`).
_STATE_FIELDS = ("slots", "conversation", "past_steps", "plan", "intent")


def jsonable(value: Any) -> Any:
    """Plain JSON data from whatever a graph state or stream holds (messages in LangChain's
    own format, interrupts as `{"value", "id"}`)."""
    if isinstance(value, BaseMessage):
        return jsonable(value.model_dump())
    if isinstance(value, Interrupt):
        return {"value": jsonable(value.value), "id": value.id}
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return jsonable(dataclasses.asdict(value))
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set):
        return [jsonable(v) for v in value]
    if isinstance(value, datetime):
        return value.isoformat()
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)


def chat_messages(messages: Any) -> list[dict[str, str]]:
    """User and assistant messages as `{role, content}` (tool traffic left out)."""
    out: list[dict[str, str]] = []
    for m in messages or []:
        if isinstance(m, BaseMessage):
            role = next((r for cls, r in _ROLES.items() if isinstance(m, cls)), None)
            if role is None or (isinstance(m, AIMessage) and m.tool_calls) or not m.text:
                continue
            out.append({"role": role, "content": m.text})
        elif isinstance(m, dict) and m.get("role") in ("user", "assistant", "system"):
            out.append({"role": m["role"], "content": str(m.get("content", ""))})
    return out


async def thread_state(turns: Turns, thread: Thread) -> dict[str, Any]:
    """The thread's state at its head: messages, known agent fields, pending question."""
    head = await turns.store.head(thread.id)
    if head is None:
        return {"messages": [], "question": None}
    try:
        graph = get_agent(thread.agent).build(await turns.context(thread))
        snapshot = await graph.aget_state(checkpoints.pinned(thread.id, head))
    except Exception:  # the state is a view; the journal still answers
        log.warning("state of thread %s unreadable", thread.id, exc_info=True)
        return {"messages": [], "question": None, "unavailable": True}
    values = snapshot.values or {}
    question = None
    if snapshot.interrupts:
        value = snapshot.interrupts[0].value
        question = value.get("question", value) if isinstance(value, dict) else value
    state: dict[str, Any] = {
        "messages": chat_messages(values.get("messages")),
        "question": jsonable(question),
    }
    state.update({k: jsonable(values[k]) for k in _STATE_FIELDS if values.get(k) is not None})
    return state


async def thread_view(turns: Turns, thread: Thread) -> dict[str, Any]:
    """Everything the web UI needs to redraw a thread."""
    await turns.recover(thread.id)  # a turn cut off by a dead worker is reported, not "running"
    journal = await turns.store.turns(thread.id)
    return {
        **thread.public(),
        "turns": [t.public() for t in journal],
        "state": await thread_state(turns, thread),
    }
