"""A blocking generator consumed from the event loop.

It runs in a worker thread and its items cross to the loop through a queue. A consumer that
stops early (its turn was stopped, its task cancelled) sets the generator's `Stop`, so the
worker ends at once: the local model leaves its line or aborts its decode.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

from dure.llm.engine import Stop

T = TypeVar("T")


@dataclass
class _Failure:
    error: BaseException


async def iterate_in_thread(produce: Callable[[Stop], Iterator[T]]) -> AsyncIterator[T]:
    """The items of `produce(stop)`, generated in a worker thread; `stop` is set once the
    consumer stops reading (exhausted, closed or cancelled), and an error is raised here."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[Any] = asyncio.Queue()
    stop = Stop()
    end = object()

    def put(item: Any) -> None:
        try:
            loop.call_soon_threadsafe(queue.put_nowait, item)
        except RuntimeError:  # the loop is gone: nobody is listening any more
            stop.set()

    def work() -> None:
        try:
            for item in produce(stop):
                put(item)
                if stop.is_set():
                    break
        except BaseException as e:  # handed to the consumer, raised there
            put(_Failure(e))
        finally:
            put(end)

    loop.run_in_executor(None, work)
    try:
        while (item := await queue.get()) is not end:
            if isinstance(item, _Failure):
                raise item.error
            yield item
    finally:
        stop.set()
