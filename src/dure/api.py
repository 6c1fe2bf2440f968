"""Dure inside an application: one call streams a turn of any agent as typed events.

    from dure import run_stream

    for event in run_stream(
        agent="contract",
        contract_id="contract_123",            # or contract="계약서.pdf" (indexed on first use)
        user_message="제5조 내용이 뭐야?",
        session_id="session_456",
        previous_turn=[
            {"role": "user", "content": "계약 기간은?"},
            {"role": "assistant", "content": "계약 기간은 1년입니다."},
        ],
    ):
        if event["type"] == "token":
            print(event["content"], end="")

`arun_stream` is the same as an async iterator. Events are the typed events of `dure.events`
(also readable as `event["type"]`); the last is always `done` with the answer, sources and
usage. A session is a thread: its checkpoint (SQLite in the data directory by default) carries
the conversation; `previous_turn` replaces the previous turn it would supply.
"""

from __future__ import annotations

import asyncio
import functools
import queue
import threading
from collections.abc import AsyncGenerator, Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from dure.agent import AgentContext, ChatMessage
from dure.agents import get_agent
from dure.events import Event, stream_turn
from dure.llm import ModelSet
from dure.persistence import open_checkpointer
from dure.settings import Settings, get_settings

P = ParamSpec("P")
T = TypeVar("T")


async def arun_stream(
    *,
    user_message: str,
    session_id: str,
    agent: str = "contract",
    previous_turn: Sequence[ChatMessage] | None = None,
    contract_id: str | None = None,
    standard_id: str | None = None,
    contract: str | Path | None = None,
    standard: str | Path | None = None,
    collection: str | None = None,
    settings: Settings | None = None,
    models: ModelSet | None = None,
) -> AsyncGenerator[Event, None]:
    """One turn of `agent` in session `session_id`, as typed events ending with `done`.

    `contract_id` / `standard_id` name documents already added (`dure documents add`);
    `contract` / `standard` are files, indexed on first use. `settings` default to the
    environment and `dure.toml`; `models` to the configured provider.
    """
    settings = settings or get_settings()
    chosen: dict[str, Any] = {
        "contract_id": contract_id,
        "standard_id": standard_id,
        "contract": contract,
        "standard": standard,
        "collection": collection,
    }
    options = {k: v for k, v in chosen.items() if v is not None}
    spec = get_agent(agent)
    async with open_checkpointer(settings.effective_database_url) as saver:
        ctx = AgentContext(settings, models or ModelSet(settings), saver, options)
        async for event in stream_turn(
            spec, ctx, session_id, user_message, previous_turn=previous_turn
        ):
            yield event


def _blocking(stream: Callable[P, AsyncGenerator[T, None]]) -> Callable[P, Iterator[T]]:
    """An async-iterator function as a plain iterator function (for code without a loop).

    The stream runs as one task on its own loop in a worker thread (so context variables set
    inside it stay in one context); items cross over a queue as they come.
    """

    @functools.wraps(stream)
    def run(*args: P.args, **kwargs: P.kwargs) -> Iterator[T]:
        items: queue.Queue[tuple[str, Any]] = queue.Queue()
        stop = threading.Event()

        async def pump() -> None:
            gen = stream(*args, **kwargs)
            try:
                async for item in gen:
                    items.put(("item", item))
                    if stop.is_set():
                        break
            finally:
                await gen.aclose()

        def work() -> None:
            try:
                asyncio.run(pump())
                items.put(("end", None))
            except BaseException as e:  # handed to the caller's thread
                items.put(("error", e))

        thread = threading.Thread(target=work, name="dure-run-stream", daemon=True)
        thread.start()
        try:
            while True:
                kind, value = items.get()
                if kind == "end":
                    return
                if kind == "error":
                    raise value
                yield value
        finally:
            stop.set()
            thread.join()

    return run


#: `arun_stream` for code without an event loop: the same arguments, the same events.
run_stream = _blocking(arun_stream)
