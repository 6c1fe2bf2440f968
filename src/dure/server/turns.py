"""Running turns: journaled, one at a time per thread, crash-safe, independent of the client.

A turn runs in its own task as a `RunningTurn` (dure.server.running), which keeps its events
for clients that reattach and stops it once its clients have left. A stopped turn (on this
worker or, through the journal, on another) is journaled `cancelled` with a note, its writes
rolled back. Each turn starts from its thread's head (the checkpoint of the last completed
turn) and only a completed turn moves the head. A turn whose worker died (killed, crashed) is
found by the next reader of its thread: it is marked `interrupted` and the writes it left on
the head are dropped, so the thread reads exactly as after its last completed turn.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import cast

from dure.agent import AgentContext, AgentSpec, ChatMessage
from dure.agents import get_agent
from dure.errors import DureError, ErrorCode
from dure.events import Done, ErrorEvent, Tap, Token, stream_turn
from dure.llm import ModelSet
from dure.server import checkpoints
from dure.server.database import IntegrityError, Storage
from dure.server.documents import agent_options
from dure.server.running import CUT_OFF, STOPPED, RunningTurn
from dure.server.store import (
    CANCELLED,
    DONE,
    FAILED,
    RUNNING,
    STATE_UPDATE,
    Store,
    Thread,
    Turn,
    new_id,
)
from dure.settings import Settings
from dure.telemetry import metrics

log = logging.getLogger(__name__)

#: How often a worker tells the others its turns are alive, and when silence means dead.
HEARTBEAT_SECONDS = 5.0
#: How often a worker with running turns looks for requests (from any worker) to stop one.
STOP_POLL_SECONDS = 0.5
STALE_AFTER_SECONDS = 30.0
#: Events kept per turn in the journal (thinking steps, tools, slots, audit) — a sanity cap.
MAX_JOURNAL_EVENTS = 300


class TurnBusyError(DureError):
    """The thread is answering another message right now."""

    def __init__(self) -> None:
        super().__init__("이 대화는 지금 다른 메시지에 답하는 중입니다. 끝난 뒤 다시 보내 주세요.")


class ServerBusyError(DureError):
    """This server process runs as many turns as it may (`server.max_concurrent_turns`)."""

    retry_after = 5

    def __init__(self, limit: int) -> None:
        super().__init__(
            f"서버가 지금 대화 {limit}개에 답하는 중이라 더 받을 수 없습니다. "
            f"{self.retry_after}초 뒤에 다시 보내 주세요."
        )


def _host() -> str:
    """This machine and PID namespace: where a worker's PID means something."""
    try:
        namespace = os.readlink("/proc/self/ns/pid")
    except OSError:
        namespace = "?"
    return f"{socket.gethostname()}/{namespace}"


class Turns:
    """Starts, journals, watches and recovers turns for one server process."""

    def __init__(
        self,
        storage: Storage,
        settings: Settings,
        models: ModelSet,
    ) -> None:
        self.storage = storage
        self.store = Store(storage.db)
        self.settings = settings
        self.models = models
        self.host = _host()
        self.worker = f"{self.host}|{os.getpid()}|{new_id()[:8]}"
        self._running: dict[str, RunningTurn] = {}
        self._heartbeat: asyncio.Task[None] | None = None
        self._watch: asyncio.Task[None] | None = None

    # -- lifecycle

    def open(self) -> None:
        """Start the heartbeat and the watch for stop requests."""
        self._heartbeat = asyncio.create_task(self._beat())
        self._watch = asyncio.create_task(self._watch_stops())

    async def close(self) -> None:
        """Stop the heartbeat; turns still running are cut off and journaled as interrupted."""
        for task in (self._heartbeat, self._watch):
            if task:
                task.cancel()
        for running in list(self._running.values()):
            if running.task:
                running.task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await running.task

    async def _beat(self) -> None:
        while True:
            await asyncio.sleep(HEARTBEAT_SECONDS)
            if self._running:
                try:
                    await self.store.heartbeat(self.worker)
                except Exception:  # a lost heartbeat is retried next time
                    log.warning("heartbeat failed", exc_info=True)

    async def _watch_stops(self) -> None:
        while True:
            await asyncio.sleep(STOP_POLL_SECONDS)
            if not self._running:
                continue
            try:
                asked = await self.store.stops_for(self.worker)
            except Exception:  # looked at again next time
                log.warning("reading stop requests failed", exc_info=True)
                continue
            for turn_id in asked:
                if running := self._running.get(turn_id):
                    running.stop()

    async def request_stop(self, turn: Turn) -> bool:
        """Stop a running turn on whichever worker runs it: here at once, elsewhere through
        the journal (that worker looks every `STOP_POLL_SECONDS`); False when it is not
        running."""
        if running := self._running.get(turn.id):
            running.stop()
            return True
        return await self.store.request_stop(turn.id)

    # -- contexts

    async def context(self, thread: Thread) -> AgentContext:
        """The agent context a thread's turns run with (its bound documents resolved)."""
        return AgentContext(
            settings=self.settings,
            models=self.models,
            checkpointer=self.storage.saver_for_turn(),
            options={
                **await agent_options(self.store, thread),
                # approvals: a server shared by keys asks before side effects (tools/approval.py)
                "where": "shared" if self.settings.server.auth else "server",
            },
        )

    # -- liveness and recovery

    def _alive(self, turn: Turn) -> bool:
        if turn.worker == self.worker:
            return turn.id in self._running
        host, pid, _ = turn.worker.rsplit("|", 2)
        if host == self.host and not host.endswith("/?"):  # a PID here means this machine's
            if int(pid) == os.getpid():
                return False  # an earlier server that had this PID (a restarted container)
            try:
                os.kill(int(pid), 0)
            except ProcessLookupError:
                return False
            except PermissionError:
                pass
        return time.time() - turn.heartbeat_at < STALE_AFTER_SECONDS

    async def recover(self, thread_id: str) -> Turn | None:
        """The thread's live running turn, if any; a dead one is marked interrupted first."""
        turn = await self.store.running_turn(thread_id)
        return await self._recovered(turn) if turn else None

    async def _recovered(self, turn: Turn) -> Turn | None:
        if self._alive(turn):
            return turn
        if await self.store.mark_interrupted(turn.id):
            log.info(
                "turn %s of thread %s was cut off: marked interrupted", turn.id, turn.thread_id
            )
            await self._roll_back(turn)
        return None

    async def _head(self, thread_id: str) -> str | None:
        """The thread's head; `TurnBusyError` while a turn is running on it."""
        last = await self.store.last_turn(thread_id)  # a running turn is always the last one
        if last is None:
            return None
        if last.status == RUNNING:
            if await self._recovered(last):
                raise TurnBusyError()
            return await self.store.head(thread_id)
        return last.checkpoint_after

    async def _roll_back(self, turn: Turn) -> None:
        """Undo what an unfinished turn wrote to its thread's head."""
        if turn.checkpoint_before:
            await checkpoints.discard_writes(
                self.storage, turn.thread_id, turn.checkpoint_before, turn.kept_writes
            )
        else:  # the thread had no completed turn: nothing of it is worth keeping
            await checkpoints.delete_thread(self.storage, turn.thread_id)

    # -- running a turn

    async def start(
        self,
        thread: Thread,
        message: str,
        *,
        tap: Tap | None = None,
        previous_turn: Sequence[ChatMessage] | None = None,
    ) -> RunningTurn:
        """Journal and start a turn; `TurnBusyError` while another one runs on the thread,
        `ServerBusyError` while this process runs its cap of turns. `tap` also receives the
        graph's own stream (LangGraph's protocol); `previous_turn` is the conversation the
        message comes in when the thread does not hold it (a stateless client's history; by
        default the exchange of a turn that was just stopped)."""
        limit = self.settings.server.max_concurrent_turns
        if limit > 0 and len(self._running) >= limit:
            metrics.TURNS_REJECTED.inc()
            raise ServerBusyError(limit)
        head = await self._head(thread.id)
        agent = get_agent(thread.agent)
        ctx = await self.context(thread)
        if previous_turn is None:
            previous_turn = await self._stopped_exchange(thread.id)
        turn = await self._journal(thread.id, message, head)
        running = RunningTurn(turn, self.settings.server.detach_grace_seconds)
        self._running[turn.id] = running
        running.task = asyncio.create_task(
            self._run(running, agent, ctx, tap=tap, previous_turn=previous_turn)
        )
        return running

    async def record_update(
        self, thread: Thread, write: Callable[[str | None], Awaitable[str]]
    ) -> str:
        """Journal a change of the thread's state made outside a turn (LangGraph's
        `update_state`): `write(head)` makes the new checkpoint from the head, and it becomes
        the head; `TurnBusyError` while a turn runs on the thread."""
        head = await self._head(thread.id)
        turn = await self._journal(thread.id, STATE_UPDATE, head)
        try:
            turn.checkpoint_after = await write(head)
        except BaseException:
            turn.status = FAILED
            await self._finish(turn)
            raise
        turn.status = DONE
        await self._finish(turn)
        return turn.checkpoint_after

    async def _journal(self, thread_id: str, message: str, head: str | None) -> Turn:
        """Journal a running turn that starts from `head` (the writes already on it are kept
        on a roll-back); `TurnBusyError` when another worker began one in the meantime."""
        now = time.time()
        turn = Turn(
            id=new_id(),
            thread_id=thread_id,
            seq=0,
            status=RUNNING,
            message=message,
            worker=self.worker,
            started_at=now,
            heartbeat_at=now,
            checkpoint_before=head,
            kept_writes=await checkpoints.write_keys(self.storage, thread_id, head) if head else [],
        )
        try:
            await self.store.begin_turn(turn)
        except IntegrityError as e:
            raise TurnBusyError() from e
        return turn

    async def _stopped_exchange(self, thread_id: str) -> list[ChatMessage] | None:
        """The exchange of the thread's newest turn if it was stopped. The agent's state does
        not hold it (it was rolled back), yet the next message may well refer to it."""
        newest = await self.store.newest_turn(thread_id)
        if newest is None or newest.status != CANCELLED:
            return None
        return [
            {"role": "user", "content": newest.message},
            {"role": "assistant", "content": newest.answer or STOPPED},
        ]

    def running_on(self, thread_id: str) -> RunningTurn | None:
        """The turn this process runs on the thread right now, if any."""
        return next((r for r in self._running.values() if r.turn.thread_id == thread_id), None)

    async def ended(self, turn: Turn) -> Turn:
        """`turn` once it has ended, on whichever worker runs it (read from the journal)."""
        if (running := self._running.get(turn.id)) and running.task:
            await asyncio.wait({running.task})
        while (now := await self.store.turn(turn.thread_id, turn.id)) and now.status == RUNNING:
            await asyncio.sleep(STOP_POLL_SECONDS)
            await self.recover(turn.thread_id)  # a dead worker's turn ends as interrupted
        return now or turn

    async def _run(
        self,
        running: RunningTurn,
        agent: AgentSpec,
        ctx: AgentContext,
        *,
        tap: Tap | None,
        previous_turn: Sequence[ChatMessage] | None,
    ) -> None:
        turn = running.turn
        started = time.perf_counter()
        done: Done | None = None
        failed = False
        streamed = ""
        try:
            async for event in stream_turn(
                agent,
                ctx,
                turn.thread_id,
                turn.message,
                checkpoint_id=turn.checkpoint_before,
                previous_turn=previous_turn,
                tap=tap,
            ):
                if isinstance(event, Done):
                    done = event  # held back until the journal has the turn (below)
                    continue
                running.add(event)
                if isinstance(event, Token):
                    streamed += str(event.content)
                elif len(turn.events) < MAX_JOURNAL_EVENTS:
                    turn.events.append(event.to_json())
                failed = failed or isinstance(event, ErrorEvent)
            running.finishing = True
            # The runner ends a turn with a plain `done` only after the graph finished (or asked
            # a question); after an error, keep the turn only if the graph still finished.
            after = await checkpoints.latest_checkpoint(self.storage, turn.thread_id)
            complete = done is not None and after not in (None, turn.checkpoint_before)
            if complete and failed:
                complete = await self._graph_finished(agent, ctx, turn.thread_id)
            turn.status = DONE if complete else FAILED
            turn.checkpoint_after = after if complete else None
            if done is not None:
                turn.answer = done.content
                turn.sources = [s.model_dump(mode="json") for s in done.sources]
                turn.waiting = done.waiting
            await self._finish(turn)
            # Only now: a client that saw `done` may send its next message to any worker.
            running.add(done or Done(content=CUT_OFF))
        except asyncio.CancelledError:
            if running.stopping is None:
                # The server is shutting down under this turn: journal it as cut off.
                with contextlib.suppress(Exception):
                    await asyncio.shield(self._interrupt(turn))
                raise
            cast(asyncio.Task[None], asyncio.current_task()).uncancel()  # it ends here, as asked
            await self._cancelled(running, streamed)
        except Exception as e:  # the client still gets an ending, and the thread is kept as was
            code = e.code if isinstance(e, DureError) else ErrorCode.INTERNAL
            if isinstance(e, DureError):  # e.g. the agent cannot read its contract file
                message = str(e)
            else:
                log.exception("turn %s of thread %s failed", turn.id, turn.thread_id)
                message = "답변을 저장하지 못했습니다. 잠시 후 다시 시도해 주세요."
            turn.status = FAILED
            turn.answer = turn.answer or message
            with contextlib.suppress(Exception):
                await self._finish(turn)
            running.add(ErrorEvent(code=code, content=message))
            running.add(Done(content=message))
        finally:
            self._running.pop(turn.id, None)
            running.add(None)
            log.info(
                "turn %s of thread %s: %s in %.0f ms",
                turn.id,
                turn.thread_id,
                turn.status,
                (time.perf_counter() - started) * 1000,
            )

    async def _cancelled(self, running: RunningTurn, streamed: str) -> None:
        """Journal a stopped turn: its message kept, what was streamed with a note that the
        answer was stopped, the thread rolled back to its head."""
        turn, why = running.turn, running.stopping or STOPPED
        stopped = ErrorEvent(code=ErrorCode.CANCELLED, content=why)
        turn.status = CANCELLED
        turn.answer = f"{streamed.rstrip()}\n\n({why})" if streamed.strip() else why
        turn.events.append(stopped.to_json())
        with contextlib.suppress(Exception):
            await self._finish(turn)
        running.add(stopped)
        running.add(Done(content=turn.answer))

    async def _finish(self, turn: Turn) -> None:
        await self.store.finish_turn(turn)
        if turn.status in (FAILED, CANCELLED):
            await self._roll_back(turn)
        await self.store.touch_thread(turn.thread_id, turn.message)

    async def _interrupt(self, turn: Turn) -> None:
        if await self.store.mark_interrupted(turn.id):
            await self._roll_back(turn)

    async def _graph_finished(self, agent: AgentSpec, ctx: AgentContext, thread_id: str) -> bool:
        """Did the run reach its end (or a question), rather than stop half-way?"""
        snapshot = await agent.build(ctx).aget_state(checkpoints.pinned(thread_id, None))
        return not snapshot.next or bool(snapshot.interrupts)
