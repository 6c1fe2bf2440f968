"""A turn in progress as its clients see it: every event it produced so far, the clients that
hold it, and how it is stopped.

A client whose connection drops reattaches and reads on from where it was (`events(start)`).
When the last client that holds the turn has left, the turn goes on for a grace period (for a
reattach) and is then stopped. Stopping cancels the turn's task: its model call halts at once,
and `Turns` journals it as `cancelled`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from dure.errors import ErrorCode
from dure.events import Done, ErrorEvent, Event
from dure.server.store import Turn

log = logging.getLogger(__name__)

CUT_OFF = "서버가 종료되어 답변이 중단되었습니다. 잠시 후 다시 보내 주세요."
STOPPED = "답변을 중지했습니다."


@dataclass
class RunningTurn:
    """A turn in progress: its journal row, its task, every event so far (`None` ends them)."""

    turn: Turn
    #: Seconds the turn goes on once its last client has left; then it is stopped.
    grace_seconds: float = 0.0
    task: asyncio.Task[None] | None = None
    seen: list[Event | None] = field(default_factory=list)
    #: Why the turn was told to stop (None: it was not).
    stopping: str | None = None
    #: Its answer is complete and being journaled: too late to stop it.
    finishing: bool = False
    holders: int = 0
    _more: asyncio.Event = field(default_factory=asyncio.Event)
    _grace: asyncio.Task[None] | None = None

    def add(self, event: Event | None) -> None:
        """The turn's next event (`None`: there are no more)."""
        self.seen.append(event)
        self._more.set()
        self._more = asyncio.Event()
        if event is None:
            self._wait_no_more()

    def stop(self, why: str = STOPPED) -> None:
        """Stop the turn now: its model call halts at once, and it ends as `cancelled` (its
        clients get an `error` with code `cancelled` and a `done` saying `why`)."""
        if self.task is not None and self.stopping is None and not self.finishing:
            self.stopping = why
            self.task.cancel()

    async def events(self, start: int = 0, hold: bool = True) -> AsyncIterator[Event]:
        """The turn's events from the `start`-th on, as they come, always ending with `done`
        (also when the server cut it off). While a client that `hold`s reads them the turn
        goes on; once the last one has left, it is stopped after the grace period."""
        if hold:
            self.holders += 1
            self._wait_no_more()
        done = False
        try:
            while True:
                while start >= len(self.seen):
                    await self._more.wait()
                event = self.seen[start]
                start += 1
                if event is None:
                    break
                done = done or isinstance(event, Done)
                yield event
        finally:
            if hold:
                self.holders -= 1
                if not self.holders and self.seen[-1:] != [None]:
                    self._grace = asyncio.create_task(self._stop_unless_back())
        if not done:  # the server is shutting down under this turn
            yield ErrorEvent(code=ErrorCode.INTERRUPTED, content=CUT_OFF)
            yield Done(content=CUT_OFF)

    async def _stop_unless_back(self) -> None:
        await asyncio.sleep(self.grace_seconds)
        if not self.holders:
            log.info("turn %s: its client left; stopped", self.turn.id)
            self.stop()

    def _wait_no_more(self) -> None:
        """A client came back (or the turn ended): no grace period runs out."""
        if self._grace is not None:
            self._grace.cancel()
            self._grace = None
