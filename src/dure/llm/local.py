"""The `local` provider: a GGUF model run in-process by llama-cpp-python.

One `Llama` per model file is loaded lazily and shared by every `LocalChatModel` (both roles);
llama.cpp is not thread-safe, so generations wait their turn in the engine's line, and a call
that has to wait says how many are ahead of it (a `queued` event). A call whose consumer goes
away (its turn was stopped) halts at once, in line or mid-decode. Prompts use the GGUF's own
chat template. Structured output and tool calls are decoded under a JSON schema (see
`dure.llm.constrained`), which is what makes a 1.5B model reliable at them.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Generator, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, ClassVar, TypedDict

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.language_models.chat_models import (
    agenerate_from_stream,
    generate_from_stream,
)
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolCallChunk,
    ToolMessage,
    UsageMetadata,
)
from langchain_core.outputs import ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.utils.function_calling import convert_to_openai_tool

from dure.llm.answer import loop_start
from dure.llm.cache import SQLiteLLMCache
from dure.llm.constrained import (
    TOOL_LOOP_SPAN,
    AnswerStream,
    ToolPlan,
    ToolReply,
    ToolReplyError,
    parse_reply,
    plan_tools,
    reply_schema,
    schema_prompt,
    tools_prompt,
)
from dure.llm.engine import Engine, LocalModelError, Stop, load_engine
from dure.llm.offload import iterate_in_thread
from dure.llm.toolcalls import as_tool_call_chunks
from dure.llm.weights import expected_sha256
from dure.settings import Role, Settings


def _spent(counts: _TokenCounts) -> dict[str, int]:
    return {"input_tokens": counts["input_tokens"], "output_tokens": counts["output_tokens"]}


def _looping_string(raw: str) -> bool:
    """Whether a constrained reply ends inside one string (no quote in its last stretch) that
    repeats itself; repeated calls with the same arguments are not this, nor bounded by it."""
    tail = raw[-TOOL_LOOP_SPAN:]
    return '"' not in tail and loop_start(raw, TOOL_LOOP_SPAN) is not None


@lru_cache(maxsize=64)
def _grammar(schema_json: str | None) -> Any:
    from llama_cpp.llama_grammar import JSON_GBNF, LlamaGrammar

    if schema_json is None:
        return LlamaGrammar.from_string(JSON_GBNF, verbose=False)
    return LlamaGrammar.from_json_schema(schema_json, verbose=False)


def _schema_of(response_format: dict[str, Any] | None) -> tuple[bool, dict[str, Any] | None]:
    """(JSON requested, its schema) from either response-format dialect."""
    if not response_format or response_format.get("type") == "text":
        return False, None
    if response_format.get("type") == "json_schema":
        return True, (response_format.get("json_schema") or {}).get("schema")
    return True, response_format.get("schema")


def _to_template(
    messages: Sequence[BaseMessage], tools_text: str | None, format_text: str | None
) -> list[dict]:
    """LangChain messages as the dicts a Hugging Face chat template expects.

    The tools' description joins the leading system message (it is the same on every call of
    an agent, so its evaluated state is reused); a reply format goes last, as a trailing
    system message, so that calls asking different formats of the same material (the
    evaluator's JSON, then the free answer) share their whole prefix in the prompt cache.
    """
    out: list[dict[str, Any]] = []
    for m in messages:
        text = str(m.text)
        if isinstance(m, SystemMessage):
            out.append({"role": "system", "content": text})
        elif isinstance(m, AIMessage):
            calls = [
                {"type": "function", "function": {"name": c["name"], "arguments": c["args"]}}
                for c in m.tool_calls
            ]
            out.append(
                {"role": "assistant", "content": text, **({"tool_calls": calls} if calls else {})}
            )
        elif isinstance(m, ToolMessage):
            out.append({"role": "tool", "content": text})
        elif isinstance(m, HumanMessage):
            out.append({"role": "user", "content": text})
        else:
            out.append({"role": m.type, "content": text})
    if tools_text:
        if out and out[0]["role"] == "system":
            out[0] = {"role": "system", "content": f"{out[0]['content']}\n\n{tools_text}"}
        else:
            out.insert(0, {"role": "system", "content": tools_text})
    if format_text:
        out.append({"role": "system", "content": format_text})
    return out


@dataclass
class _Request:
    messages: list[dict[str, Any]]
    schema_json: str | None
    constrained: bool
    plan: ToolPlan | None
    max_tokens: int
    stop: list[str]


class _TokenCounts(TypedDict):
    """What one generation used; `_pieces` yields the prompt's size before the text and the
    exact counts after it."""

    input_tokens: int
    output_tokens: int


@dataclass
class _Queued:
    """The call waits for the model: `ahead` generations go first."""

    ahead: int


def _report(queued: _Queued) -> None:
    """Tell whoever streams the turn where this call waits (a no-op outside a graph)."""
    from dure.events import Queued, emit  # dure.events imports the agents, which import this

    emit(Queued(ahead=queued.ahead, content=f"대기 중: 앞에 {queued.ahead}개"))


class LocalChatModel(BaseChatModel):
    """A chat model backed by a GGUF file and llama.cpp, running in this process."""

    #: `dure.llm.structured` sends llama.cpp's dialect: {"type": "json_object", "schema": ...}.
    json_mode: ClassVar[str] = "json_object"

    model_path: str
    n_ctx: int = 8192
    n_threads: int = 2
    max_tokens: int = 1024
    prompt_cache_mb: int = 0
    temperature: float = 0.0  # deterministic: the LLM cache relies on it
    #: Penalty on tokens repeated from the last 64 generated ones, for free text only (a JSON
    #: reply under a grammar must repeat its keys and quotes). 1.0: off.
    repeat_penalty: float = 1.0
    sha256: str | None = None  # expected hash; None accepts any valid GGUF

    @property
    def _llm_type(self) -> str:
        return "dure-llama-cpp"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {
            "model_path": self.model_path,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "n_ctx": self.n_ctx,
            "repeat_penalty": self.repeat_penalty,
        }

    def engine(self) -> Engine:
        """The loaded model (loading it on first use)."""
        return load_engine(
            Path(self.model_path), self.n_ctx, self.n_threads, self.sha256, self.prompt_cache_mb
        )

    def bind_tools(
        self,
        tools: Sequence[Any],
        *,
        tool_choice: Any = None,
        parallel_tool_calls: bool | None = None,
        **kwargs: Any,
    ) -> Runnable:
        """Bind tools; every call is decoded under a schema of these tools (see module doc)."""
        schemas = [convert_to_openai_tool(t) for t in tools]
        plan_tools(schemas, tool_choice, parallel_tool_calls)  # reject a bad choice now
        return self.bind(
            tools=schemas,
            tool_choice=tool_choice,
            parallel_tool_calls=parallel_tool_calls,
            **kwargs,
        )

    def _request(
        self, messages: list[BaseMessage], stop: list[str] | None, kwargs: dict
    ) -> _Request:
        plan = plan_tools(
            kwargs.get("tools"), kwargs.get("tool_choice"), kwargs.get("parallel_tool_calls")
        )
        tools_text = format_text = None
        if plan is not None:
            schema: dict[str, Any] | None = reply_schema(plan)
            wants_json, tools_text = True, tools_prompt(plan)
        else:
            wants_json, schema = _schema_of(kwargs.get("response_format"))
            format_text = schema_prompt(schema) if schema else None
        return _Request(
            messages=_to_template(messages, tools_text, format_text),
            schema_json=json.dumps(schema, ensure_ascii=False) if schema else None,
            constrained=wants_json,
            plan=plan,
            max_tokens=int(kwargs.get("max_tokens") or self.max_tokens),
            stop=list(stop or []),
        )

    def _pieces(self, req: _Request, stop: Stop | None) -> Generator[str | _TokenCounts | _Queued]:
        """Generated text pieces, then one dict with the token counts; before them, while the
        call waits for the model, how many are ahead whenever that changes. A set `stop` ends
        it early, with no counts."""
        engine = self.engine()
        with engine.line.place() as me:
            told = 0
            while ahead := engine.line.ahead(me, wait=0.1):
                if stop is not None and stop.is_set():
                    return
                if ahead != told:
                    told = ahead
                    yield _Queued(ahead)
            with engine.running(stop):
                yield from self._generation(engine, req, stop)

    def _sampling(self, req: _Request) -> dict[str, float]:
        """Sampler settings: the repetition penalty is for prose only — a JSON reply under a
        grammar must repeat its keys and quotes."""
        penalty = 1.0 if req.constrained else self.repeat_penalty
        return {"temperature": self.temperature, "repeat_penalty": penalty}

    def _generation(
        self, engine: Engine, req: _Request, stop: Stop | None
    ) -> Iterator[str | _TokenCounts]:
        """The generation itself, on the engine this call now holds."""
        fmt = engine.formatter(messages=req.messages)
        llama = engine.llama
        prompt = llama.tokenize(
            fmt.prompt.encode("utf-8"), add_bos=not fmt.added_special, special=True
        )
        room = self.n_ctx - len(prompt)
        if room <= 0:
            raise LocalModelError(
                f"입력이 로컬 모델의 문맥 길이를 넘습니다 ({len(prompt)} > {self.n_ctx} 토큰)."
            )
        stops = req.stop + ([fmt.stop] if isinstance(fmt.stop, str) else list(fmt.stop or []))
        text = ""
        # The prompt's size first: a reply cut short by its reader (a loop) still reports it.
        yield {"input_tokens": len(prompt), "output_tokens": 0}
        try:
            for chunk in llama.create_completion(
                prompt=prompt,
                max_tokens=min(req.max_tokens, room),
                **self._sampling(req),
                stop=stops,
                stopping_criteria=fmt.stopping_criteria,
                grammar=_grammar(req.schema_json) if req.constrained else None,
                stream=True,
            ):
                piece = chunk["choices"][0]["text"]
                text += piece
                yield piece
                if stop is not None and stop.is_set():
                    return
        except RuntimeError:  # "llama_decode returned 2": the stop aborted the decode
            if stop is not None and stop.is_set():
                return
            raise
        completion = len(llama.tokenize(text.encode("utf-8"), add_bos=False, special=True))
        yield {"input_tokens": len(prompt), "output_tokens": completion}

    def _chunks(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None,
        kwargs: dict,
        cancel: Stop | None,
    ) -> Iterator[ChatGenerationChunk | _Queued]:
        """The reply as chunks; `_Queued` items while the call waits for the model."""
        req = self._request(messages, stop, kwargs)
        plan = req.plan
        answer = AnswerStream() if plan is not None and plan.mode == "auto" else None
        raw = shown = ""
        counts: _TokenCounts = {"input_tokens": 0, "output_tokens": 0}
        pieces = self._pieces(req, cancel)
        for piece in pieces:
            if isinstance(piece, _Queued):
                yield piece
                continue
            if not isinstance(piece, str):
                counts = piece  # the prompt's size first, the exact counts last
                continue
            raw += piece
            counts["output_tokens"] += 1  # a streamed piece is a token, until the exact count
            text = piece if plan is None else answer.feed(piece) if answer else ""
            if text:
                yield ChatGenerationChunk(message=AIMessageChunk(content=text))
                shown += text
                if (answer or not req.constrained) and loop_start(shown) is not None:
                    # Prose that repeats itself only gets longer: stop decoding here.
                    pieces.close()
                    break
            elif plan is not None and not shown and _looping_string(raw):
                # An argument that repeats itself never closes: measured, "'网球', '高尔夫', …"
                # in one string until the token limit (2.5 minutes), then the same error.
                pieces.close()
                raise ToolReplyError(f"looping tool reply: {raw[-200:]!r}", _spent(counts))
        if cancel is not None and cancel.is_set():
            return  # stopped: nobody reads the rest
        tool_chunks: list[ToolCallChunk] = []
        if plan is not None:
            try:
                reply = parse_reply(raw)
            except ToolReplyError as e:
                if answer is None or not answer.started:
                    e.usage = _spent(counts)
                    raise
                # The token limit cut an answer short: keep what was streamed, as text would be.
                reply = ToolReply(answer=answer.emitted, tool_calls=[])
            if answer is not None and reply.answer and reply.answer.startswith(answer.emitted):
                rest = reply.answer[len(answer.emitted) :]  # held back by an unfinished escape
                if rest:
                    yield ChatGenerationChunk(message=AIMessageChunk(content=rest))
            tool_chunks = as_tool_call_chunks(reply.tool_calls)
        usage = UsageMetadata(
            input_tokens=counts["input_tokens"],
            output_tokens=counts["output_tokens"],
            total_tokens=counts["input_tokens"] + counts["output_tokens"],
        )
        yield ChatGenerationChunk(
            message=AIMessageChunk(
                content="",
                tool_call_chunks=tool_chunks,
                usage_metadata=usage,
                response_metadata={"model_name": Path(self.model_path).name},
                chunk_position="last",
            )
        )

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return generate_from_stream(self._stream(messages, stop, run_manager, **kwargs))

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        for chunk in self._chunks(messages, stop, kwargs, None):
            if isinstance(chunk, _Queued):
                _report(chunk)
            else:
                yield chunk

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> ChatResult:
        # Through the stream, so that a call nobody streams can be stopped the same way.
        return await agenerate_from_stream(self._astream(messages, stop, run_manager, **kwargs))

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: Any = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        # The whole generation runs in one worker thread, which holds the engine throughout.
        def chunks(cancel: Stop) -> Iterator[ChatGenerationChunk | _Queued]:
            return self._chunks(messages, stop, kwargs, cancel)

        async for item in iterate_in_thread(chunks):
            if isinstance(item, _Queued):
                _report(item)
            else:
                yield item


def local_chat_model(
    settings: Settings, role: Role, cache: SQLiteLLMCache | None = None
) -> LocalChatModel:
    """The local model for a role (both roles share one loaded model).

    Nothing is read here: the file is verified and loaded on the first request, so a turn that
    rules decide without an LLM never needs the model. A missing or corrupted model is then one
    clear `ModelFileError`, which the event stream reports as it is.
    """
    return LocalChatModel(
        model_path=str(settings.model_path),
        n_ctx=settings.local.n_ctx,
        n_threads=settings.local.n_threads,
        max_tokens=settings.local.max_tokens,
        prompt_cache_mb=settings.local.prompt_cache_mb,
        repeat_penalty=settings.local.repeat_penalty,
        sha256=expected_sha256(settings),
        cache=cache,
    )
