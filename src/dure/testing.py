"""Test doubles, public API: `ScriptedChatModel` plays a chat model from a script.

    model = ScriptedChatModel([
        {"route": "agent", "reason": "인사"},          # a structured output (sent as JSON text)
        tool_call("calculator", expression="1+1"),     # a tool call
        "2입니다.",                                      # a plain answer, streamed token by token
    ])

Every call is recorded in `model.calls` (messages, bound tools, tool choice, response format,
node, tags) so tests can assert how many LLM calls a turn made and with what.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, UsageMetadata
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable, RunnableConfig, ensure_config
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import BaseModel, ConfigDict, PrivateAttr

from dure.llm.toolcalls import as_tool_call_chunks


@dataclass
class Call:
    """One recorded chat-model call."""

    messages: list[BaseMessage]
    tools: list[str] = field(default_factory=list)
    tool_choice: Any = None
    response_format: dict[str, Any] | None = None
    node: str | None = None
    tags: list[str] = field(default_factory=list)
    #: The per-call cap on generated tokens, when the caller bound one.
    max_tokens: int | None = None

    @property
    def prompt(self) -> str:
        """All message texts joined, for substring assertions."""
        return "\n".join(str(m.content) for m in self.messages)


class ScriptExhausted(AssertionError):
    """The model was called more often than the script foresaw."""


def tool_call(name: str, /, **args: Any) -> AIMessage:
    """A scripted reply that calls one tool."""
    return tool_calls((name, args))


def tool_calls(*calls: tuple[str, dict[str, Any]]) -> AIMessage:
    """A scripted reply that calls several tools at once."""
    return AIMessage(
        content="",
        tool_calls=[
            {"name": n, "args": a, "id": f"call_{uuid.uuid4().hex[:8]}", "type": "tool_call"}
            for n, a in calls
        ],
    )


# The config of the call in progress (tags, metadata with the LangGraph node), for the record.
_call_config: ContextVar[RunnableConfig | None] = ContextVar("dure_scripted_call", default=None)

Reply = str | AIMessage | dict | list | BaseModel | BaseException
Responder = Callable[[Call], Reply]


def _estimate_tokens(text: str) -> int:
    # Scripted usage is an estimate (about 3 characters a token); it only needs to be monotone.
    return max(1, len(text) // 3) if text else 0


def _to_message(reply: Reply) -> AIMessage:
    if isinstance(reply, BaseException):
        raise reply
    if isinstance(reply, AIMessage):
        return reply
    if isinstance(reply, BaseModel):
        return AIMessage(content=reply.model_dump_json())
    if isinstance(reply, dict | list):
        return AIMessage(content=json.dumps(reply, ensure_ascii=False))
    return AIMessage(content=str(reply))


class ScriptedChatModel(BaseChatModel):
    """A chat model that answers from a script (a list of replies or a function of the call)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    script: list[Any] = []
    responder: Any = None
    chunk_chars: int = 4
    _calls: list[Call] = PrivateAttr(default_factory=list)
    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)

    def __init__(self, script: Sequence[Reply] | Responder = (), **kwargs: Any) -> None:
        # The fields are this model's own; the parent's (plugin-typed) __init__ does not list
        # them, but pydantic's BaseModel.__init__ takes every field by keyword.
        own: dict[str, Any] = (
            {"responder": script} if callable(script) else {"script": list(script)}
        )
        super().__init__(**own, **kwargs)

    @property
    def _llm_type(self) -> str:
        return "dure-scripted"

    @property
    def calls(self) -> list[Call]:
        """Every call so far, in order."""
        return self._calls

    @property
    def remaining(self) -> int:
        """Replies not yet used."""
        return len(self.script)

    def add(self, *replies: Reply) -> None:
        """Append replies to the script."""
        self.script.extend(replies)

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """Record tools like a real provider would send them."""
        schemas = [convert_to_openai_tool(t) for t in tools]
        return self.bind(tools=schemas, tool_choice=tool_choice, **kwargs)

    def invoke(
        self, input: LanguageModelInput, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AIMessage:
        token = _call_config.set(ensure_config(config))
        try:
            return super().invoke(input, config, **kwargs)
        finally:
            _call_config.reset(token)

    async def ainvoke(
        self, input: LanguageModelInput, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AIMessage:
        token = _call_config.set(ensure_config(config))
        try:
            return await super().ainvoke(input, config, **kwargs)
        finally:
            _call_config.reset(token)

    # stream/astream record the call on their first chunk: the config is set around that step
    # only, so it is never held across a `yield` (where the consumer's context may differ).
    def stream(
        self, input: LanguageModelInput, config: RunnableConfig | None = None, **kwargs: Any
    ) -> Iterator[AIMessageChunk]:
        chunks = super().stream(input, config, **kwargs)
        token = _call_config.set(ensure_config(config))
        try:
            first = next(chunks, None)
        finally:
            _call_config.reset(token)
        if first is not None:
            yield first
            yield from chunks

    async def astream(
        self, input: LanguageModelInput, config: RunnableConfig | None = None, **kwargs: Any
    ) -> AsyncIterator[AIMessageChunk]:
        chunks = super().astream(input, config, **kwargs)
        token = _call_config.set(ensure_config(config))
        try:
            first = await anext(chunks, None)
        finally:
            _call_config.reset(token)
        if first is not None:
            yield first
            async for chunk in chunks:
                yield chunk

    def _next(self, call: Call) -> AIMessage:
        with self._lock:
            self._calls.append(call)
            if self.responder is not None:
                reply = self.responder(call)
            elif self.script:
                reply = self.script.pop(0)
            else:
                raise ScriptExhausted(
                    f"unscripted call #{len(self._calls)}: {call.prompt[-200:]!r}"
                )
        return _to_message(reply)

    def _record(
        self,
        messages: list[BaseMessage],
        run_manager: CallbackManagerForLLMRun | AsyncCallbackManagerForLLMRun | None,
        kwargs: dict[str, Any],
    ) -> Call:
        tools = [t["function"]["name"] for t in kwargs.get("tools") or []]
        config = _call_config.get() or {}
        meta = config.get("metadata") or {}
        tags = config.get("tags") or []
        return Call(
            messages=list(messages),
            tools=tools,
            tool_choice=kwargs.get("tool_choice"),
            response_format=kwargs.get("response_format"),
            node=meta.get("langgraph_node"),
            tags=list(dict.fromkeys(tags)),
            max_tokens=kwargs.get("max_tokens"),
        )

    def _usage(self, messages: list[BaseMessage], reply: AIMessage) -> UsageMetadata:
        prompt = sum(_estimate_tokens(str(m.content)) for m in messages)
        completion = _estimate_tokens(str(reply.content)) + 8 * len(reply.tool_calls)
        return {
            "input_tokens": prompt,
            "output_tokens": completion,
            "total_tokens": prompt + completion,
        }

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        reply = self._next(self._record(messages, run_manager, kwargs))
        msg = AIMessage(
            content=reply.content,
            tool_calls=reply.tool_calls,
            usage_metadata=self._usage(messages, reply),
        )
        return ChatResult(generations=[ChatGeneration(message=msg)])

    def _chunks(
        self,
        messages: list[BaseMessage],
        run_manager: CallbackManagerForLLMRun | AsyncCallbackManagerForLLMRun | None,
        kwargs: dict[str, Any],
    ) -> list[ChatGenerationChunk]:
        reply = self._next(self._record(messages, run_manager, kwargs))
        text = str(reply.content)
        step = max(1, self.chunk_chars)
        chunks = [
            ChatGenerationChunk(message=AIMessageChunk(content=text[i : i + step]))
            for i in range(0, len(text), step)
        ]
        chunks.append(
            ChatGenerationChunk(
                message=AIMessageChunk(
                    content="",
                    tool_call_chunks=as_tool_call_chunks(reply.tool_calls),
                    usage_metadata=self._usage(messages, reply),
                )
            )
        )
        return chunks

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        yield from self._chunks(messages, run_manager, kwargs)

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        for chunk in self._chunks(messages, run_manager, kwargs):
            yield chunk
