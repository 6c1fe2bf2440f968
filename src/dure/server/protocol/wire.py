"""LangGraph's Agent Protocol on the wire: how Dure's threads, turns and graph states look to
`langgraph-sdk`, `RemoteGraph` and the UIs built on them.

Messages travel in LangChain's own format (`type`, `content`, `id`, …), so a chat UI renders
a thread's `values.messages`; interrupts as `{"value", "id"}`; times in ISO 8601 (UTC).
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, convert_to_messages
from langgraph.types import StateSnapshot

from dure.agent import AgentSpec
from dure.server.history import jsonable
from dure.server.store import CANCELLED, DONE, FAILED, INTERRUPTED, RUNNING, Thread, Turn

#: Assistant ids are derived from the graph name, so every worker (and restart) agrees on them.
ASSISTANTS = uuid.UUID("6f0c5e1a-3d7b-4a52-9c1e-64757265a551")


def assistant_id(graph_id: str) -> str:
    """The assistant id of a graph (agent) name."""
    return str(uuid.uuid5(ASSISTANTS, graph_id))


def iso(timestamp: float) -> str:
    """A Unix time as ISO 8601 in UTC."""
    return datetime.fromtimestamp(timestamp, UTC).isoformat()


def state_values(values: Any) -> dict[str, Any]:
    """A graph state as the protocol shows it: `messages` always in LangChain's format (an
    agent that keeps `{"role", "content"}` dicts gets them converted)."""
    if not isinstance(values, dict):
        return {}
    shown = jsonable(values)
    messages = values.get("messages")
    if messages and any(not isinstance(m, BaseMessage) for m in messages):
        shown["messages"] = [m.model_dump() for m in convert_to_messages(messages)]
    return shown


def conversation(turns: list[Turn]) -> list[dict[str, Any]]:
    """Journaled turns as LangChain messages: each one's message, then its answer."""
    messages: list[BaseMessage] = []
    for turn in turns:
        messages.append(HumanMessage(turn.message, id=f"{turn.id}-human"))
        messages.append(AIMessage(turn.answer or "", id=f"{turn.id}-ai"))
    return [m.model_dump() for m in messages]


def assistant(spec: AgentSpec) -> dict[str, Any]:
    """One assistant per agent; `graph_id` is the agent's name."""
    created = iso(0)
    return {
        "assistant_id": assistant_id(spec.name),
        "graph_id": spec.name,
        "name": spec.name,
        "description": spec.title,
        "config": {},
        "context": {},
        "metadata": {"created_by": "system"},
        "version": 1,
        "created_at": created,
        "updated_at": created,
    }


def checkpoint(thread_id: str, checkpoint_id: str | None) -> dict[str, Any]:
    """A checkpoint reference."""
    return {
        "thread_id": thread_id,
        "checkpoint_ns": "",
        "checkpoint_id": checkpoint_id,
        "checkpoint_map": None,
    }


def _checkpoint_of(config: Any) -> dict[str, Any] | None:
    if not config:
        return None
    conf = config["configurable"]
    return checkpoint(conf["thread_id"], conf.get("checkpoint_id"))


def thread_state(snapshot: StateSnapshot) -> dict[str, Any]:
    """A `ThreadState`: values, next nodes, checkpoint, tasks and their interrupts."""
    tasks = [
        {
            "id": task.id,
            "name": task.name,
            "error": str(task.error) if task.error else None,
            "interrupts": jsonable(list(task.interrupts)),
            "checkpoint": None,
            "state": None,
            "result": jsonable(task.result),
        }
        for task in snapshot.tasks
    ]
    own = _checkpoint_of(snapshot.config)
    return {
        "values": state_values(snapshot.values),
        "next": list(snapshot.next),
        "checkpoint": own,
        "metadata": jsonable(snapshot.metadata or {}),
        "created_at": snapshot.created_at,
        "parent_checkpoint": _checkpoint_of(snapshot.parent_config),
        "tasks": tasks,
        "interrupts": jsonable(list(snapshot.interrupts)),
    }


def empty_state(thread_id: str) -> dict[str, Any]:
    """The state of a thread that has not run yet."""
    return {
        "values": {},
        "next": [],
        "checkpoint": checkpoint(thread_id, None),
        "metadata": {},
        "created_at": None,
        "parent_checkpoint": None,
        "tasks": [],
        "interrupts": [],
    }


def thread_status(last: Turn | None) -> str:
    """`busy` while a turn runs, `interrupted` while the agent waits for a reply, else `idle`
    (a failed turn leaves the thread as it was before it)."""
    if last is None:
        return "idle"
    if last.status == RUNNING:
        return "busy"
    return "interrupted" if last.waiting else "idle"


def thread(
    row: Thread,
    status: str,
    values: dict[str, Any] | None = None,
    interrupts: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """A `Thread`; `metadata` carries its graph (once bound) beside the client's own keys."""
    metadata = dict(row.metadata)
    if row.agent:
        metadata.update(graph_id=row.agent, assistant_id=assistant_id(row.agent))
    return {
        "thread_id": row.id,
        "created_at": iso(row.created_at),
        "updated_at": iso(row.updated_at),
        "metadata": metadata,
        "status": status,
        "values": values,
        "interrupts": {"": interrupts} if interrupts else {},
    }


#: A journaled turn's status as a run's: a stopped turn is `interrupted` (LangGraph's word for
#: a run stopped on request), one cut off by a dead worker an `error`.
_RUN_STATUS = {RUNNING: "running", FAILED: "error", INTERRUPTED: "error", CANCELLED: "interrupted"}


def run(turn: Turn, agent: str, metadata: dict[str, Any] | None = None) -> dict[str, Any]:
    """A `Run`: one journaled turn. A turn that ended on a question is `interrupted` too, as
    LangGraph's runs that stop at an `interrupt()` are."""
    if turn.status == DONE:
        status = "interrupted" if turn.waiting else "success"
    else:
        status = _RUN_STATUS.get(turn.status, "error")
    return {
        "run_id": turn.id,
        "thread_id": turn.thread_id,
        "assistant_id": assistant_id(agent),
        "created_at": iso(turn.started_at),
        "updated_at": iso(turn.finished_at or turn.heartbeat_at),
        "status": status,
        "metadata": metadata or {},
        "multitask_strategy": "reject",
    }
