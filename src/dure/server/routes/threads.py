"""Threads and their messages: create/list/read/delete, post a message (SSE or one JSON answer),
stop the answer or reattach to its stream, read the article a source cites."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Header, HTTPException, Request, Response
from pydantic import AfterValidator, BaseModel, Field

from dure.agents import get_agent
from dure.events import Done, Event, Token
from dure.server.deps import Owner, SettingsDep, StoreDep, TurnsDep
from dure.server.documents import check_options, find_article
from dure.server.history import thread_view
from dure.server.running import RunningTurn
from dure.server.sse import frame, sse_response
from dure.server.store import Store, Thread
from dure.server.turns import TurnBusyError, Turns
from dure.settings import Settings

router = APIRouter(tags=["threads"])

NOT_FOUND = "대화를 찾을 수 없습니다."
NOTHING_RUNNING = "이 대화에서 진행 중인 답변이 없습니다."
ELSEWHERE = "이 답변은 다른 서버 프로세스가 만들고 있어 여기서는 이어 받을 수 없습니다."
#: How often a client that waits for one JSON answer is checked for having left.
DISCONNECT_POLL_SECONDS = 1.0


def encodable(text: str) -> str:
    """`text` when UTF-8 can carry it; a lone surrogate ("\\ud800" in JSON) is refused (422)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        raise ValueError(f"UTF-8로 나타낼 수 없는 문자가 있습니다 (위치 {e.start}).") from None
    return text


#: Text from a request: anything UTF-8 can carry.
Text = Annotated[str, AfterValidator(encodable)]


class ThreadIn(BaseModel):
    """A new thread: which agent, and what it works on."""

    agent: Text = Field(description="에이전트 이름 (GET /agents)")
    title: Text = Field("", max_length=200, description="제목 (비우면 첫 메시지로)")
    contract: Text | None = Field(None, description="계약서 문서 ID (POST /documents)")
    standard: Text | None = Field(None, description="표준계약서 문서 ID")
    collection: Text | None = Field(None, description="검색할 컬렉션 이름")


class MessageIn(BaseModel):
    """A user message."""

    content: Text = Field(description="메시지 본문")


async def owned_thread(store: Store, owner: str, thread_id: str) -> Thread:
    """The caller's thread, or 404 (another key's thread does not exist for the caller)."""
    thread = await store.thread(owner, thread_id)
    if thread is None:
        raise HTTPException(404, NOT_FOUND)
    return thread


def check_message(settings: Settings, content: str) -> str:
    """422 for an empty or over-long message."""
    limit = settings.max_message_chars
    if not content.strip():
        raise HTTPException(422, "빈 메시지입니다.")
    if len(content) > limit:
        raise HTTPException(422, f"메시지가 너무 깁니다 (최대 {limit:,}자).")
    return content


async def start_turn(turns: Turns, thread: Thread, content: str) -> RunningTurn:
    """Start a turn; 409 while the thread answers another message."""
    try:
        return await turns.start(thread, content)
    except TurnBusyError as e:
        raise HTTPException(409, str(e)) from e


@router.post("/threads", status_code=201, summary="새 대화")
async def create_thread(body: ThreadIn, owner: Owner, store: StoreDep) -> dict[str, Any]:
    """Create a thread bound to an agent (and a contract, standard or collection)."""
    get_agent(body.agent)
    options = body.model_dump(include={"contract", "standard", "collection"}, exclude_none=True)
    await check_options(store, owner, options)
    thread = await store.create_thread(owner, body.agent, body.title.strip(), options)
    return thread.public()


@router.get("/threads", summary="대화 목록")
async def list_threads(owner: Owner, store: StoreDep) -> dict[str, Any]:
    """The caller's threads, most recently used first."""
    return {"threads": [t.public() for t in await store.threads(owner)]}


@router.get("/threads/{thread_id}", summary="대화 기록과 상태")
async def read_thread(thread_id: str, owner: Owner, store: StoreDep, turns: TurnsDep) -> Any:
    """Every turn (message, answer, sources, steps, status) and the agent state at the head."""
    return await thread_view(turns, await owned_thread(store, owner, thread_id))


@router.delete("/threads/{thread_id}", status_code=204, summary="대화 삭제")
async def delete_thread(thread_id: str, owner: Owner, store: StoreDep, turns: TurnsDep) -> Response:
    """Delete a thread, its journal and its checkpoints."""
    thread = await owned_thread(store, owner, thread_id)
    if await turns.recover(thread.id):
        raise HTTPException(409, str(TurnBusyError()))
    await store.delete_thread(owner, thread.id)
    await turns.storage.checkpointer.adelete_thread(thread.id)
    return Response(status_code=204)


@router.post(
    "/threads/{thread_id}/messages",
    summary="메시지 보내기 (SSE 또는 JSON)",
    responses={200: {"content": {"text/event-stream": {}, "application/json": {}}}},
)
async def post_message(
    thread_id: str,
    body: MessageIn,
    request: Request,
    owner: Owner,
    store: StoreDep,
    turns: TurnsDep,
    settings: SettingsDep,
) -> Any:
    """Send a message. With `Accept: text/event-stream` the agent's events stream as SSE (event
    name = event type, data = the event as JSON); otherwise the answer comes as one JSON object."""
    thread = await owned_thread(store, owner, thread_id)
    running = await start_turn(turns, thread, check_message(settings, body.content))
    headers = {"X-Dure-Thread": thread.id, "X-Dure-Turn": running.turn.id}
    if "text/event-stream" in request.headers.get("accept", ""):
        return sse_response(event_frames(running), headers)
    events = await whole_turn(request, running)
    done: Done | None = None
    steps: list[dict[str, Any]] = []
    for event in events:
        if isinstance(event, Done):
            done = event
        elif not isinstance(event, Token):
            steps.append(event.to_json())
    if done is None:  # the client left (`RunningTurn.events` always ends with `done`)
        return Response(status_code=204)
    return {
        "thread_id": thread.id,
        "turn_id": running.turn.id,
        "answer": done.content,
        "sources": [s.model_dump(mode="json") for s in done.sources],
        "waiting": done.waiting,
        "usage": done.usage.model_dump(mode="json"),
        "events": steps,
    }


async def event_frames(running: RunningTurn, start: int = 0) -> AsyncIterator[str]:
    """The turn's events from the `start`-th on as SSE frames, each with its index as `id`."""
    async for event in running.events(start):
        yield frame(event.to_json(), event.type, start)
        start += 1


async def whole_turn(request: Request, running: RunningTurn) -> list[Event]:
    """Every event of a turn, for a client that waits for the whole answer; if the client
    leaves first, it stops holding the turn (as a closed SSE stream does) and gets nothing."""
    reading = asyncio.ensure_future(_all_events(running))
    while not reading.done():
        await asyncio.wait({reading}, timeout=DISCONNECT_POLL_SECONDS)
        if not reading.done() and await request.is_disconnected():
            reading.cancel()
    return [] if reading.cancelled() else reading.result()


async def _all_events(running: RunningTurn) -> list[Event]:
    return [event async for event in running.events()]


@router.post("/threads/{thread_id}/cancel", summary="답변 중지")
async def cancel_turn(
    thread_id: str, owner: Owner, store: StoreDep, turns: TurnsDep
) -> dict[str, Any]:
    """Stop the answer the thread is producing, on whichever server process makes it: its
    model call halts at once. Answers once the turn has ended: kept with its message and a
    note that the answer was stopped (`status: cancelled`); the thread reads as before it and
    takes the next message at once. 409 when nothing is being answered."""
    thread = await owned_thread(store, owner, thread_id)
    turn = await turns.recover(thread.id)
    if turn is None or not await turns.request_stop(turn):
        raise HTTPException(409, NOTHING_RUNNING)
    turn = await turns.ended(turn)
    return {"thread_id": turn.thread_id, "turn_id": turn.id, "status": turn.status}


@router.get(
    "/threads/{thread_id}/events",
    summary="진행 중인 답변 다시 받기 (SSE)",
    responses={200: {"content": {"text/event-stream": {}}}},
)
async def reattach(
    thread_id: str,
    owner: Owner,
    store: StoreDep,
    turns: TurnsDep,
    last_event_id: Annotated[int | None, Header(ge=-1)] = None,
) -> Any:
    """The events of the answer in progress, as SSE: all of them, or those after
    `Last-Event-ID` (each frame's `id`). A client whose stream dropped reattaches here; while
    none is attached, the answer goes on for `server.detach_grace_seconds`, then stops."""
    thread = await owned_thread(store, owner, thread_id)
    running = turns.running_on(thread.id)
    if running is None:  # events are kept by the process that makes the answer
        raise HTTPException(409, ELSEWHERE if await turns.recover(thread.id) else NOTHING_RUNNING)
    start = 0 if last_event_id is None else last_event_id + 1
    if start > len(running.seen):  # an id this answer never sent
        raise HTTPException(
            422, f"Last-Event-ID가 이 답변의 마지막 이벤트({len(running.seen) - 1})보다 큽니다."
        )
    headers = {"X-Dure-Thread": running.turn.thread_id, "X-Dure-Turn": running.turn.id}
    return sse_response(event_frames(running, start), headers)


@router.get("/threads/{thread_id}/article", summary="출처 조항 원문")
async def read_article(
    thread_id: str, doc: str, no: str, owner: Owner, store: StoreDep, kind: str | None = None
) -> dict[str, Any]:
    """The full text of an article a source cites (`doc`, `no`, optional source `kind`): from
    the thread's contract or standard, or else as the source itself was recorded."""
    thread = await owned_thread(store, owner, thread_id)
    found = await find_article(store, thread, doc, no, kind)
    if found:
        return found
    for turn in reversed(await store.turns(thread.id)):
        for source in turn.sources:
            if source.get("doc") == doc and source.get("article_no") == no and source.get("text"):
                return {k: source.get(k) for k in ("doc", "article_no", "article_title", "text")}
    raise HTTPException(404, "조항을 찾을 수 없습니다.")
