"""A process-wide cap on concurrent sandbox runs: first come, first served, a bounded wait.

One count for the whole process — the server's event loop, `asyncio.run` in the CLI, worker
threads with loops of their own — so it is a lock and a queue, not an `asyncio.Semaphore`
(which belongs to one loop). A waiter whose turn comes is handed the slot by whoever freed it.
"""

from __future__ import annotations

import asyncio
import threading
from collections import deque
from dataclasses import dataclass


@dataclass(eq=False)
class _Waiter:
    limit: int
    loop: asyncio.AbstractEventLoop
    future: asyncio.Future[None]
    granted: bool = False


def _wake(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class RunSlots:
    """Slots for running sandboxes; each caller says how many may run at once."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running = 0
        self._queue: deque[_Waiter] = deque()

    @property
    def running(self) -> int:
        """Slots taken now."""
        return self._running

    async def acquire(self, limit: int, wait: float) -> bool:
        """Take a slot, waiting in line up to `wait` seconds; False if none came free."""
        with self._lock:
            if self._running < limit and not self._queue:
                self._running += 1
                return True
            loop = asyncio.get_running_loop()
            waiter = _Waiter(limit, loop, loop.create_future())
            self._queue.append(waiter)
        try:
            await asyncio.wait_for(asyncio.shield(waiter.future), wait)
        except TimeoutError:
            return self._leave(waiter)  # handed a slot at the last moment: keep it
        except asyncio.CancelledError:
            if self._leave(waiter):
                self.release()
            raise
        return True

    def release(self) -> None:
        """Give a slot back; the next in line, if it fits, gets it."""
        with self._lock:
            self._running -= 1
            self._grant()

    def _leave(self, waiter: _Waiter) -> bool:
        """Take `waiter` out of the line; True if it had been handed a slot meanwhile."""
        with self._lock:
            if waiter.granted:
                return True
            self._queue.remove(waiter)
            self._grant()  # it may have held up others behind it
            return False

    def _grant(self) -> None:
        # Called with the lock held. The head of the line goes first, so none is overtaken.
        while self._queue and self._running < self._queue[0].limit:
            waiter = self._queue.popleft()
            try:
                waiter.loop.call_soon_threadsafe(_wake, waiter.future)
            except RuntimeError:  # its loop is closed: nobody is waiting there any more
                continue
            waiter.granted = True
            self._running += 1


#: The one instance every sandbox run goes through.
SLOTS = RunSlots()
