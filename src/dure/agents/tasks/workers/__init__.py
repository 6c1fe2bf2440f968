"""Worker agents: they run after the Q&A gate, one step each (lunch: menu → restaurants)."""

from dure.agents.tasks.workers import lunch, meeting, taxi  # noqa: F401  (register the workers)
from dure.agents.tasks.workers.base import (
    Worker,
    WorkerInput,
    WorkerResult,
    get_worker,
    register_worker,
    worker_description,
)

__all__ = [
    "Worker",
    "WorkerInput",
    "WorkerResult",
    "get_worker",
    "register_worker",
    "worker_description",
]
