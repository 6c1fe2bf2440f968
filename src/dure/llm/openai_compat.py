"""The `openai` provider: any OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, LM Studio, llama.cpp).

A thin subclass of langchain-openai's `ChatOpenAI`: the openai SDK already retries 408/409/429/
5xx and connection errors with exponential backoff (`max_retries`) and enforces `timeout`.
What this adds is for small models behind local servers:

- a tool call that comes back as text (Qwen's fenced JSON `{"name", "arguments"}` or a
  `<tool_call>…</tool_call>` block) while tools are bound becomes a real tool call;
- a server that rejects `response_format` type `json_schema` (llama-cpp-python's server
  accepts only `json_object` with a `schema`) is asked in that dialect from then on.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import openai
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, ToolCall
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_openai import ChatOpenAI
from pydantic import PrivateAttr, SecretStr

from dure.errors import DureError
from dure.llm.cache import SQLiteLLMCache
from dure.llm.constrained import new_call_id
from dure.llm.toolcalls import as_tool_call_chunks
from dure.netloc import is_local_url
from dure.privacy import mask_value
from dure.settings import Role, Settings

OPENAI_BASE_URL = "https://api.openai.com/v1"
# Local servers ignore the key, but the openai SDK insists on one.
_PLACEHOLDER_KEY = "not-needed"

# Base URLs that rejected `json_schema`; shared by every model instance in the process.
_json_object_servers: set[str] = set()


class ProviderError(DureError):
    """The OpenAI-compatible endpoint is misconfigured, unreachable or refuses us."""


def _base_url(settings: Settings) -> str:
    return (settings.base_url or OPENAI_BASE_URL).rstrip("/")


def _api_key(settings: Settings) -> str:
    """The key to send; a missing key is an error only for OpenAI itself."""
    if settings.api_key is not None and settings.api_key.get_secret_value():
        return settings.api_key.get_secret_value()
    if "api.openai.com" in _base_url(settings):
        raise ProviderError(
            "OpenAI API 키가 없습니다: DURE_API_KEY를 설정하거나, "
            "DURE_BASE_URL로 OpenAI 호환 서버를 지정하세요."
        )
    return _PLACEHOLDER_KEY


# --- tool calls returned as text -------------------------------------------------------------

_TAGGED = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.DOTALL)
_FENCED = re.compile(r"```[a-zA-Z_]*\s*(.*?)\s*```", re.DOTALL)
# How a text tool call can begin; content that starts otherwise is an answer and streams.
_CALL_OPENINGS = ("```", "<tool_call>", "{", "[")


def parse_text_tool_calls(text: str, names: set[str]) -> tuple[str, list[ToolCall]] | None:
    """(remaining text, tool calls) if `text` is a tool call in text form, else None.

    Accepted: `<tool_call>` blocks anywhere (the text around them stays the content), or a
    reply that is nothing but fenced or bare JSON calls. Every call must name a bound tool.
    """
    if tagged := _TAGGED.findall(text):
        bodies, rest = tagged, _TAGGED.sub("", text).strip()
    else:
        stripped = text.strip()
        fenced = _FENCED.findall(stripped)
        bodies = fenced if fenced and not _FENCED.sub("", stripped).strip() else [stripped]
        rest = ""
    calls: list[ToolCall] = []
    for body in bodies:
        try:
            data = json.loads(body)
        except ValueError:
            return None
        for item in data if isinstance(data, list) else [data]:
            call = _as_tool_call(item, names)
            if call is None:
                return None
            calls.append(call)
    return (rest, calls) if calls else None


def _as_tool_call(item: Any, names: set[str]) -> ToolCall | None:
    if not isinstance(item, dict) or item.get("name") not in names:
        return None
    args = item.get("arguments", item.get("parameters", {}))
    if isinstance(args, str):
        try:
            args = json.loads(args or "{}")
        except ValueError:
            return None
    if not isinstance(args, dict):
        return None
    return ToolCall(name=item["name"], args=args, id=new_call_id(), type="tool_call")


def _tool_names(kwargs: dict[str, Any]) -> set[str]:
    """Names of the tools bound to this call (none if the call may not use them)."""
    if kwargs.get("tool_choice") == "none":
        return set()
    return {
        t["function"]["name"]
        for t in kwargs.get("tools") or []
        if isinstance(t, dict) and "function" in t
    }


def _convert_result(result: ChatResult, names: set[str]) -> ChatResult:
    gens = []
    for gen in result.generations:
        msg = gen.message
        if isinstance(msg, AIMessage) and not msg.tool_calls and names:
            parsed = parse_text_tool_calls(msg.text, names)
            if parsed is not None:
                rest, calls = parsed
                reply = AIMessage(
                    content=rest,
                    tool_calls=calls,
                    id=msg.id,
                    usage_metadata=msg.usage_metadata,
                    response_metadata=msg.response_metadata,
                )
                gen = ChatGeneration(message=reply, generation_info=gen.generation_info)
        gens.append(gen)
    return ChatResult(generations=gens, llm_output=result.llm_output)


class _TextCallBuffer:
    """Holds back streamed chunks while they may still be a tool call written as text."""

    def __init__(self, names: set[str]) -> None:
        self.names = names
        self.held: list[ChatGenerationChunk] = []
        self.text = ""
        self.passing = not names  # once the content is clearly an answer, stream it through

    def push(self, chunk: ChatGenerationChunk) -> list[ChatGenerationChunk]:
        if self.passing:
            return [chunk]
        self.held.append(chunk)
        self.text += chunk.text
        head = self.text.lstrip()
        if head and not any(o.startswith(head) or head.startswith(o) for o in _CALL_OPENINGS):
            self.passing = True
            out, self.held = self.held, []
            return out
        return []

    def finish(self) -> list[ChatGenerationChunk]:
        if not self.held:
            return []
        merged = self.held[0]
        for c in self.held[1:]:
            merged = merged + c
        msg = merged.message
        if not isinstance(msg, AIMessageChunk) or msg.tool_call_chunks:
            return self.held
        parsed = parse_text_tool_calls(self.text, self.names)
        if parsed is None:
            return self.held
        rest, calls = parsed
        chunk = AIMessageChunk(
            content=rest,
            id=msg.id,
            usage_metadata=msg.usage_metadata,
            response_metadata=msg.response_metadata,
            tool_call_chunks=as_tool_call_chunks(calls),
        )
        return [ChatGenerationChunk(message=chunk, generation_info=merged.generation_info)]


# --- the model -------------------------------------------------------------------------------


def _rejects_json_schema(error: Exception) -> bool:
    """Whether an API error says the server does not know `response_format` type json_schema."""
    if not isinstance(error, openai.APIStatusError) or error.status_code not in (400, 422, 500):
        return False
    text = str(error)
    return "json_schema" in text and "response_format" in text


class OpenAICompatChatModel(ChatOpenAI):
    """`ChatOpenAI` for any OpenAI-compatible server, tolerant of small models' habits."""

    #: How `dure.llm.structured` asks for JSON ("json_schema", or "json_object" + schema).
    json_mode: str = "json_schema"
    #: Mask personal numbers in every request (`dure.privacy`): a provider off this machine.
    mask_personal: bool = False
    _async_loop: Any = PrivateAttr(default=None)

    def _async_client_for_this_loop(self) -> None:
        # langchain-openai shares one async HTTP client per base URL across the process; its
        # pooled connections belong to the event loop that opened them, and reusing them from
        # another loop (the CLI runs each turn in a new `asyncio.run`) fails with "Event loop
        # is closed". Each model gets its own client, renewed when the loop changes.
        loop = asyncio.get_running_loop()
        if self._async_loop is not loop:
            self.root_async_client = self.root_async_client.copy(
                http_client=openai.DefaultAsyncHttpxClient()
            )
            self.async_client = self.root_async_client.chat.completions
            self._async_loop = loop

    def _effective(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        """Request parameters with the JSON dialect this server is known to accept."""
        fmt = kwargs.get("response_format")
        if (
            isinstance(fmt, dict)
            and fmt.get("type") == "json_schema"
            and self._server() in _json_object_servers
        ):
            schema = (fmt.get("json_schema") or {}).get("schema")
            return {**kwargs, "response_format": {"type": "json_object", "schema": schema}}
        return kwargs

    def _get_request_payload(self, input_: Any, *, stop: Any = None, **kwargs: Any) -> dict:
        payload: dict[str, Any] = super()._get_request_payload(input_, stop=stop, **kwargs)
        if self.mask_personal:  # contents and tool-call arguments, whatever the role
            payload["messages"] = mask_value(payload.get("messages", []))
        return payload

    def _server(self) -> str:
        return self.openai_api_base or OPENAI_BASE_URL

    def _learn(self, error: Exception, kwargs: dict[str, Any]) -> bool:
        fmt = kwargs.get("response_format")
        if (
            isinstance(fmt, dict)
            and fmt.get("type") == "json_schema"
            and _rejects_json_schema(error)
        ):
            _json_object_servers.add(self._server())
            return True
        return False

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        try:
            result = super()._generate(messages, stop, run_manager, **self._effective(kwargs))
        except openai.APIStatusError as e:
            if not self._learn(e, kwargs):
                raise
            result = super()._generate(messages, stop, run_manager, **self._effective(kwargs))
        return _convert_result(result, _tool_names(kwargs))

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        self._async_client_for_this_loop()
        try:
            result = await super()._agenerate(
                messages, stop, run_manager, **self._effective(kwargs)
            )
        except openai.APIStatusError as e:
            if not self._learn(e, kwargs):
                raise
            result = await super()._agenerate(
                messages, stop, run_manager, **self._effective(kwargs)
            )
        return _convert_result(result, _tool_names(kwargs))

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        started = False
        try:
            for chunk in self._buffered(messages, stop, run_manager, kwargs):
                started = True
                yield chunk
        except openai.APIStatusError as e:
            if started or not self._learn(e, kwargs):
                raise
            yield from self._buffered(messages, stop, run_manager, kwargs)

    def _buffered(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None,
        run_manager: Any,
        kwargs: dict[str, Any],
    ) -> Iterator[ChatGenerationChunk]:
        buffer = _TextCallBuffer(_tool_names(kwargs))
        for chunk in super()._stream(messages, stop, run_manager, **self._effective(kwargs)):
            yield from buffer.push(chunk)
        yield from buffer.finish()

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        self._async_client_for_this_loop()
        started = False
        try:
            async for chunk in self._abuffered(messages, stop, run_manager, kwargs):
                started = True
                yield chunk
        except openai.APIStatusError as e:
            if started or not self._learn(e, kwargs):
                raise
            async for chunk in self._abuffered(messages, stop, run_manager, kwargs):
                yield chunk

    async def _abuffered(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None,
        run_manager: Any,
        kwargs: dict[str, Any],
    ) -> AsyncIterator[ChatGenerationChunk]:
        buffer = _TextCallBuffer(_tool_names(kwargs))
        stream = super()._astream(messages, stop, run_manager, **self._effective(kwargs))
        async for chunk in stream:
            for out in buffer.push(chunk):
                yield out
        for out in buffer.finish():
            yield out


def openai_chat_model(
    settings: Settings, role: Role, cache: SQLiteLLMCache | None = None
) -> OpenAICompatChatModel:
    """The OpenAI-compatible chat model for a role."""
    return OpenAICompatChatModel(
        # Field names, not their aliases (model, base_url, api_key, timeout): ChatOpenAI
        # populates by name, and only the names are in its typed constructor.
        model_name=settings.model_name(role),
        openai_api_base=_base_url(settings),
        openai_api_key=SecretStr(_api_key(settings)),
        request_timeout=settings.request_timeout,
        max_retries=settings.max_retries,
        temperature=0.0,  # deterministic where the model allows it (the LLM cache relies on it)
        stream_usage=True,  # usage in streams too: budgets count tokens
        json_mode=settings.json_mode,
        cache=cache,
        mask_personal=not settings.privacy.allow_remote and not is_local_url(_base_url(settings)),
    )


def check_endpoint(settings: Settings, timeout: float = 5.0) -> None:
    """Raise `ProviderError` (one Korean line) unless `GET {base_url}/models` answers properly."""
    base = _base_url(settings)
    key = _api_key(settings)
    try:
        r = httpx.get(f"{base}/models", headers={"Authorization": f"Bearer {key}"}, timeout=timeout)
    except httpx.TimeoutException as e:
        raise ProviderError(f"제공자가 {timeout:g}초 안에 응답하지 않습니다: {base}") from e
    except httpx.HTTPError as e:
        raise ProviderError(f"제공자에 연결할 수 없습니다: {base} ({type(e).__name__})") from e
    if r.status_code in (401, 403):
        raise ProviderError(
            f"API 키가 거부되었습니다 (HTTP {r.status_code}): DURE_API_KEY를 확인하세요."
        )
    if r.status_code == 404:
        raise ProviderError(
            f"OpenAI 호환 API를 찾을 수 없습니다 (HTTP 404 {base}/models): "
            "DURE_BASE_URL을 확인하세요 (보통 …/v1로 끝납니다)."
        )
    if r.status_code >= 400:
        raise ProviderError(f"제공자가 오류로 응답했습니다 (HTTP {r.status_code}): {base}")
    try:
        listed = isinstance(r.json().get("data"), list)
    except (ValueError, AttributeError):
        listed = False
    if not listed:
        raise ProviderError(
            f"OpenAI 호환 API의 응답이 아닙니다 ({base}/models): DURE_BASE_URL을 확인하세요."
        )
