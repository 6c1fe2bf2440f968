"""What a worker agent is: an async function from the filled conversation to a result."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from dure.agents.tasks.state import ConversationState
from dure.llm import ModelSet
from dure.settings import Settings
from dure.sources import Source


class WorkerResult(BaseModel):
    """A worker's outcome: a Korean summary, its data, what it cites, and notices the answer
    carries (sample data, a requirement left unchecked)."""

    ok: bool = True
    summary: str
    data: dict[str, Any] = Field(default_factory=dict)
    sources: list[Source] = Field(default_factory=list)
    notices: list[str] = Field(default_factory=list)


@dataclass
class WorkerInput:
    """What a worker gets: the conversation, earlier workers' results, the time, the settings,
    who asks (an API key's owner id, or the local user) and the models (for a bounded call)."""

    conversation: ConversationState
    now: datetime
    settings: Settings
    thread_id: str = ""
    results: dict[str, WorkerResult] = field(default_factory=dict)
    owner: str = ""
    models: ModelSet | None = None


Worker = Callable[[WorkerInput], Awaitable[WorkerResult]]

_WORKERS: dict[str, tuple[Worker, str]] = {}


def register_worker(name: str, description: str) -> Callable[[Worker], Worker]:
    """Register a worker under the name intents list in `IntentSchema.workers`."""

    def add(fn: Worker) -> Worker:
        _WORKERS[name] = (fn, description)
        return fn

    return add


def get_worker(name: str) -> Worker:
    """The worker called `name` (KeyError for an intent that names an unregistered one)."""
    return _WORKERS[name][0]


def worker_description(name: str) -> str:
    """What the worker does, in Korean (shown as the plan's step)."""
    return _WORKERS[name][1]
