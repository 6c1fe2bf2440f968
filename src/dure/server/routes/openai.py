"""OpenAI-compatible API: `GET /v1/models` (one model per agent) and `POST /v1/chat/completions`
(with and without `stream`, in OpenAI's chunk format), so OpenAI SDKs and chat front ends work.

Which thread a request continues: the `X-Dure-Thread` header (an existing thread of the key),
else the `user` field (a name for the key's thread, created on first use), else the thread whose
conversation so far matches the messages sent (clients that resend the whole history), else a
new thread — and then the messages the client sent before its last are the conversation the
agent answers in (a stateless client's follow-up keeps its context). The answer carries the
thread id in the `X-Dure-Thread` response header. A new thread takes its documents from the
request's `metadata` (`contract`, `standard`, `collection`: document ids from `POST /documents`).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Sequence
from typing import Any, Literal

from fastapi import APIRouter, HTTPException, Request, Response
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, model_validator

from dure.agent import ChatMessage as AgentMessage
from dure.agents import agent_names
from dure.events import Done, Token
from dure.server.database import IntegrityError
from dure.server.deps import Owner, SettingsDep, StoreDep, TurnsDep
from dure.server.documents import THREAD_OPTIONS, check_options
from dure.server.routes.threads import Text, check_message, encodable, whole_turn
from dure.server.sse import frame, sse_response
from dure.server.store import Store, Thread

router = APIRouter(prefix="/v1", tags=["openai"])

MODEL_PREFIX = "dure-"


class ChatMessage(BaseModel):
    """One message as OpenAI clients send it (text content or text parts)."""

    model_config = ConfigDict(extra="allow")

    role: Text
    content: Text | list[dict[str, Any]] | None = None

    @model_validator(mode="after")
    def _parts_encodable(self) -> ChatMessage:
        encodable(self.text())
        return self

    def text(self) -> str:
        """The message's text (image and other parts ignored)."""
        if isinstance(self.content, list):
            return "".join(p.get("text", "") for p in self.content if p.get("type") == "text")
        return self.content or ""


class StreamOptions(BaseModel):
    """OpenAI's `stream_options`."""

    include_usage: bool = False


class ChatRequest(BaseModel):
    """The fields of an OpenAI chat-completion request Dure uses (others are accepted)."""

    model_config = ConfigDict(extra="allow")

    model: Text
    messages: list[ChatMessage] = Field(min_length=1)
    stream: bool = False
    stream_options: StreamOptions | None = None
    user: Text | None = Field(None, max_length=200)
    metadata: dict[str, Text] | None = Field(
        None, description="새 대화의 문서: contract, standard, collection (문서 ID)"
    )

    def options(self) -> dict[str, str]:
        """What a new thread works on, from `metadata`."""
        return {k: v for k, v in (self.metadata or {}).items() if k in THREAD_OPTIONS}


def _agent_of(model: str) -> str:
    name = model.removeprefix(MODEL_PREFIX)
    if name not in agent_names():
        models = ", ".join(MODEL_PREFIX + n for n in agent_names())
        raise HTTPException(404, f"알 수 없는 모델입니다: {model} (사용 가능: {models})")
    return name


def _digest(agent: str, messages: Sequence[tuple[str, str]]) -> str:
    """A conversation's fingerprint: its user and assistant turns, whitespace-normalised."""
    norm = [(r, " ".join(c.split())) for r, c in messages if r in ("user", "assistant")]
    return hashlib.sha256(json.dumps([agent, norm], ensure_ascii=False).encode()).hexdigest()


def _history(body: ChatRequest) -> list[AgentMessage]:
    """The user and assistant messages the client sent before its last one."""
    return [
        {"role": "user" if m.role == "user" else "assistant", "content": m.text()}
        for m in body.messages[:-1]
        if m.role in ("user", "assistant") and m.text()
    ]


async def _thread_for(
    request: Request, body: ChatRequest, store: Store, owner: str, agent: str
) -> tuple[Thread, list[AgentMessage] | None]:
    """The thread the request continues, and the conversation to answer in when the thread
    does not hold it (a new thread for a client that sent its history)."""
    header = request.headers.get("x-dure-thread")
    if header:
        thread = await store.thread(owner, header)
        if thread is None:
            raise HTTPException(404, "대화를 찾을 수 없습니다.")
        if thread.agent != agent:
            raise HTTPException(
                400, f"이 대화의 에이전트는 {thread.agent}입니다 (model: {MODEL_PREFIX}{agent})."
            )
        return thread, None
    if body.user:
        thread = await store.thread_by_alias(owner, body.user)
        if thread and thread.agent == agent:
            return thread, None
        if thread:
            raise HTTPException(
                400, f"user {body.user!r}의 대화는 {thread.agent} 에이전트를 씁니다."
            )
        await check_options(store, owner, body.options())
        try:
            created = await store.create_thread(owner, agent, "", body.options(), alias=body.user)
            return created, None
        except IntegrityError:  # a concurrent first request created it: continue that one
            return await _thread_for(request, body, store, owner, agent)
    history = _history(body)
    if any(m["role"] == "assistant" for m in history):
        pairs = [(m["role"], m["content"]) for m in history]
        found = await store.conversation(owner, _digest(agent, pairs))
        thread = await store.thread(owner, found) if found else None
        if thread:
            return thread, None
    await check_options(store, owner, body.options())
    return await store.create_thread(owner, agent, "", body.options()), history or None


def _usage(done: Done) -> dict[str, int]:
    u = done.usage
    return {
        "prompt_tokens": u.prompt_tokens,
        "completion_tokens": u.completion_tokens,
        "total_tokens": u.prompt_tokens + u.completion_tokens,
    }


def _rest(streamed: str, answer: str) -> str:
    """What the final answer adds to the tokens already streamed."""
    if not streamed:
        return answer
    if answer.startswith(streamed):
        return answer[len(streamed) :]
    return "" if answer == streamed else f"\n\n{answer}"


@router.get("/models", summary="모델 목록 (에이전트마다 하나)")
async def list_models(owner: Owner) -> dict[str, Any]:
    """One model per agent, named `dure-<agent>`."""
    return {
        "object": "list",
        "data": [
            {"id": MODEL_PREFIX + n, "object": "model", "created": 0, "owned_by": "dure"}
            for n in agent_names()
        ],
    }


@router.post("/chat/completions", summary="채팅 완성 (OpenAI 호환)")
async def chat_completions(
    body: ChatRequest,
    request: Request,
    owner: Owner,
    store: StoreDep,
    turns: TurnsDep,
    settings: SettingsDep,
) -> Any:
    """Answer the last user message on the chosen thread, as OpenAI would (also streamed)."""
    agent = _agent_of(body.model)
    last = body.messages[-1]
    if last.role != "user":
        raise HTTPException(400, "마지막 메시지는 사용자(user) 메시지여야 합니다.")
    thread, history = await _thread_for(request, body, store, owner, agent)
    # `TurnBusyError` is a 409 (in OpenAI's error shape) through the app's handler
    running = await turns.start(thread, check_message(settings, last.text()), previous_turn=history)
    base = {"id": f"chatcmpl-{running.turn.id}", "created": int(time.time()), "model": body.model}
    headers = {"X-Dure-Thread": thread.id}
    conversation = [(m.role, m.text()) for m in body.messages]

    async def remember(answer: str) -> None:
        digest = _digest(agent, [*conversation, ("assistant", answer)])
        await store.remember_conversation(owner, digest, thread.id)

    def extra(done: Done) -> dict[str, Any]:
        sources = [s.model_dump(mode="json") for s in done.sources]
        return {"thread_id": thread.id, "sources": sources, "waiting": done.waiting}

    if body.stream:
        include_usage = bool(body.stream_options and body.stream_options.include_usage)

        def chunk(delta: dict[str, Any], finish: Literal["stop"] | None = None) -> str:
            choice = {"index": 0, "delta": delta, "finish_reason": finish}
            return frame({**base, "object": "chat.completion.chunk", "choices": [choice]})

        async def frames() -> Any:
            yield chunk({"role": "assistant", "content": ""})
            streamed = ""
            async for event in running.events():
                if isinstance(event, Token) and event.content:
                    streamed += event.content
                    yield chunk({"content": event.content})
                elif isinstance(event, Done):
                    if rest := _rest(streamed, event.content or ""):
                        yield chunk({"content": rest})
                    await remember(event.content or "")
                    final = {**base, "object": "chat.completion.chunk", "dure": extra(event)}
                    final["choices"] = [{"index": 0, "delta": {}, "finish_reason": "stop"}]
                    yield frame(final)
                    if include_usage:
                        usage = {**base, "object": "chat.completion.chunk", "choices": []}
                        yield frame({**usage, "usage": _usage(event)})
            yield frame("[DONE]")

        return sse_response(frames(), headers)
    done = next((e for e in await whole_turn(request, running) if isinstance(e, Done)), None)
    if done is None:  # the client left
        return Response(status_code=204)
    await remember(done.content or "")
    message = {"role": "assistant", "content": done.content or ""}
    return JSONResponse(
        {
            **base,
            "object": "chat.completion",
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": _usage(done),
            "dure": extra(done),
        },
        headers=headers,
    )
