"""`LocalChatModel` around a scripted generator: prompts, constrained modes, streaming, cache.

The real model runs in tests/e2e/test_local_model.py; here llama.cpp's token stream is
replaced by scripted text so every branch is exercised quickly.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import tool

from dure.llm import weights
from dure.llm.cache import SQLiteLLMCache
from dure.llm.constrained import ToolReplyError
from dure.llm.local import LocalChatModel, _to_template, local_chat_model
from dure.llm.weights import ModelFileError
from dure.settings import DEFAULT_MODEL_SHA256, Settings


@tool
def get_weather(city: str) -> str:
    """도시의 현재 날씨를 알려 줍니다."""
    return "맑음"


@tool
def calculator(expression: str) -> str:
    """수식을 계산합니다."""
    return "2"


class FakeLocal(LocalChatModel):
    """Generates scripted replies three characters at a time instead of running llama.cpp."""

    model_path: str = "/nowhere/fake.gguf"
    replies: list[str] = []
    requests: list[Any] = []

    def _pieces(self, req: Any, cancel: threading.Event | None) -> Iterator[str | dict]:
        self.requests.append(req)
        text = self.replies.pop(0)
        yield {"input_tokens": 11, "output_tokens": 0}  # the prompt's size, as llama.cpp's
        for i in range(0, len(text), 3):
            yield text[i : i + 3]
        yield {"input_tokens": 11, "output_tokens": 7}


def _system(model: FakeLocal) -> str:
    first = model.requests[-1].messages[0]
    assert first["role"] == "system"
    return first["content"]


async def test_plain_text_streams_piece_by_piece_with_usage():
    model = FakeLocal(replies=["서울은 한국의 수도입니다."])
    chunks = [c async for c in model.astream([HumanMessage("수도는?")])]
    texts = [c.content for c in chunks if c.content]
    assert len(texts) > 3 and "".join(texts) == "서울은 한국의 수도입니다."
    merged = sum(chunks[1:], chunks[0])
    assert merged.usage_metadata["input_tokens"] == 11
    assert merged.usage_metadata["total_tokens"] == 18
    assert model.requests[-1].constrained is False


async def test_auto_tool_choice_streams_the_answer_and_not_the_json():
    reply = json.dumps({"answer": '안녕하세요! "두레"입니다.\n무엇을 도와드릴까요?'})
    model = FakeLocal(replies=[reply])
    bound = model.bind_tools([get_weather, calculator])
    chunks = [
        c async for c in bound.astream([SystemMessage("당신은 비서입니다."), HumanMessage("안녕")])
    ]
    texts = [c.content for c in chunks if c.content]
    assert "".join(texts) == '안녕하세요! "두레"입니다.\n무엇을 도와드릴까요?'
    assert len(texts) > 3 and not any("{" in t for t in texts)
    system = _system(model)
    assert system.startswith("당신은 비서입니다.\n\n# 도구")  # merged into the caller's system
    assert "- get_weather: 도시의 현재 날씨를 알려 줍니다." in system
    assert '"answer"' in model.requests[-1].schema_json


async def test_auto_tool_choice_returns_tool_calls_when_the_model_calls():
    reply = '{"tool_calls": [{"name": "get_weather", "arguments": {"city": "부산"}}]}'
    model = FakeLocal(replies=[reply, reply])
    bound = model.bind_tools([get_weather, calculator], tool_choice="auto")

    chunks = [c async for c in bound.astream([HumanMessage("부산 날씨?")])]
    assert not any(c.content for c in chunks)
    streamed = sum(chunks[1:], chunks[0])
    message = await bound.ainvoke([HumanMessage("부산 날씨?")])

    for msg in (streamed, message):
        assert [(c["name"], c["args"]) for c in msg.tool_calls] == [
            ("get_weather", {"city": "부산"})
        ]
        assert msg.tool_calls[0]["id"].startswith("call_")
    assert message.content == ""


def test_forced_choice_is_constrained_to_the_named_tool():
    reply = '{"tool_calls": [{"name": "calculator", "arguments": {"expression": "1+1"}}]}'
    model = FakeLocal(replies=[reply])
    msg = model.bind_tools([get_weather, calculator], tool_choice="calculator").invoke("1+1?")
    assert msg.tool_calls[0]["args"] == {"expression": "1+1"}
    schema = json.loads(model.requests[-1].schema_json)
    assert "answer" not in json.dumps(schema)
    assert schema["properties"]["tool_calls"]["items"]["properties"]["name"] == {
        "const": "calculator"
    }
    assert "반드시 `calculator` 도구를 호출하세요" in _system(model)


def test_an_unknown_forced_tool_is_refused_when_binding():
    with pytest.raises(ValueError, match="unknown tool"):
        FakeLocal().bind_tools([get_weather], tool_choice="send_mail")


def test_tool_choice_none_is_plain_text():
    model = FakeLocal(replies=["그냥 답"])
    msg = model.bind_tools([get_weather], tool_choice="none").invoke("안녕")
    assert msg.content == "그냥 답" and not msg.tool_calls
    assert model.requests[-1].constrained is False


def test_structured_output_is_constrained_by_its_schema_and_described_in_korean():
    schema = {"type": "object", "properties": {"label": {"enum": ["긍정", "부정"]}}}
    model = FakeLocal(replies=['{"label": "긍정"}', '{"label": "부정"}'])
    for fmt in (
        {"type": "json_object", "schema": schema},
        {"type": "json_schema", "json_schema": {"name": "S", "schema": schema}},
    ):
        model.invoke([SystemMessage("판정자"), HumanMessage("좋아요")], response_format=fmt)
        req = model.requests[-1]
        assert req.constrained and json.loads(req.schema_json) == schema
        # The format trails the conversation: the system prompt and the question stay a
        # prefix shared with calls that ask another format (or none).
        assert _system(model) == "판정자"
        assert req.messages[-1]["role"] == "system"
        assert req.messages[-1]["content"].startswith("# 출력 형식")
    assert LocalChatModel.json_mode == "json_object"


def test_a_cut_off_answer_keeps_what_was_generated_but_a_cut_off_call_fails():
    model = FakeLocal(replies=['{"answer": "절반만 생성된 답', '{"tool_calls": [{"name": "get_'])
    bound = model.bind_tools([get_weather])
    assert bound.invoke("질문").content == "절반만 생성된 답"
    with pytest.raises(ToolReplyError):
        bound.invoke("질문")


def test_tool_arguments_that_loop_stop_decoding_and_fail_with_their_usage():
    head = '{"tool_calls": [{"name": "get_weather", "arguments": {"city": "'
    looping = head + "'网球', '高尔夫', '保龄球', '台球', '乒乓球', '羽毛球', " * 40
    model = FakeLocal(replies=[looping])
    with pytest.raises(ToolReplyError, match="looping") as failed:
        model.bind_tools([get_weather]).invoke("운동화 코스?")
    spent = failed.value.usage
    assert spent["input_tokens"] == 11
    assert 0 < spent["output_tokens"] < len(looping) // 3 / 4  # cut early, not at the limit


def test_parallel_calls_of_one_tool_are_not_taken_for_a_loop():
    call = {"name": "get_weather", "arguments": {"city": "서울특별시 중구 세종대로"}}
    calls = [call, call, call, {"name": "get_weather", "arguments": {"city": "부산"}}]
    model = FakeLocal(replies=[json.dumps({"tool_calls": calls}, ensure_ascii=False)])
    reply = model.bind_tools([get_weather]).invoke("날씨?")
    assert [c["args"]["city"] for c in reply.tool_calls][-1] == "부산"


def test_history_with_tool_calls_renders_for_the_chat_template():
    call = {"name": "get_weather", "args": {"city": "서울"}, "id": "call_1", "type": "tool_call"}
    messages = _to_template(
        [
            HumanMessage("서울 날씨?"),
            AIMessage(content="", tool_calls=[call]),
            ToolMessage("맑음", tool_call_id="call_1"),
        ],
        "# 도구",
        None,
    )
    assert messages == [
        {"role": "system", "content": "# 도구"},
        {"role": "user", "content": "서울 날씨?"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": {"city": "서울"}},
                }
            ],
        },
        {"role": "tool", "content": "맑음"},
    ]


async def test_a_consumer_that_stops_early_stops_the_generation():
    produced: list[int] = []
    stopped = threading.Event()

    class Endless(FakeLocal):
        def _pieces(self, req: Any, cancel: threading.Event | None) -> Iterator[str | dict]:
            try:
                n = 0
                while not (cancel and cancel.is_set()):
                    produced.append(n)
                    n += 1
                    yield "토큰 "
                    threading.Event().wait(0.001)
            finally:
                stopped.set()

    stream = Endless().astream("끝없이 말해")
    async for _chunk in stream:
        break
    await stream.aclose()
    assert await asyncio.to_thread(stopped.wait, 10)


def test_the_cache_answers_a_repeated_call_without_generating(settings, tmp_path):
    model = FakeLocal(replies=["한 번만"], cache=SQLiteLLMCache(tmp_path / "cache.sqlite"))
    assert model.invoke("같은 질문").content == "한 번만"
    assert model.invoke("같은 질문").content == "한 번만"  # the script is empty: a cache hit
    assert len(model.requests) == 1


def test_a_missing_model_is_refused_at_the_first_request_not_at_creation(settings, monkeypatch):
    monkeypatch.delenv("DURE_LOCAL__PATH", raising=False)
    model = local_chat_model(Settings(), "fast")  # a turn decided by rules never needs the file
    with pytest.raises(ModelFileError, match="dure models pull"):
        model.invoke("안녕")


def test_the_factory_configures_the_model_from_settings(settings, monkeypatch, tmp_path):
    monkeypatch.setenv("DURE_LOCAL__N_CTX", "2048")
    monkeypatch.setenv("DURE_LOCAL__REPEAT_PENALTY", "1.07")
    monkeypatch.delenv("DURE_LOCAL__PATH", raising=False)  # the default model: hash-checked
    s = Settings()
    assert s.model_path.is_relative_to(tmp_path)  # never the real model
    # A verified model (its sidecar records the expected hash for this size and mtime).
    s.model_path.parent.mkdir(parents=True)
    s.model_path.write_bytes(b"GGUF" + bytes(16))
    weights._write_sidecar(s.model_path, DEFAULT_MODEL_SHA256)

    model = local_chat_model(s, "smart")
    assert (model.model_path, model.n_ctx, model.temperature) == (str(s.model_path), 2048, 0.0)
    assert model.sha256 == DEFAULT_MODEL_SHA256
    assert model.repeat_penalty == 1.07


def test_prose_that_repeats_itself_stops_decoding():
    sentence = "이 조항은 계약 체결일로부터 14일 이내에 선급금을 지급하도록 정합니다. "
    looping = FakeLocal(replies=[sentence * 20, '{"answer": "' + sentence * 20 + '"}'])
    text = looping.invoke("제5조?").content
    assert sentence.strip() in text and len(text) < 4 * len(sentence)  # not 20 times
    # The same inside a tool-capable call's answer: what was shown is kept.
    answer = looping.bind_tools([get_weather]).invoke("제5조?").content
    assert len(answer) < 4 * len(sentence)


def test_a_reply_cut_for_repeating_still_reports_its_usage():
    sentence = "이 조항은 계약 체결일로부터 14일 이내에 선급금을 지급하도록 정합니다. "
    usage = FakeLocal(replies=[sentence * 20]).invoke("제5조?").usage_metadata
    assert usage is not None and usage["input_tokens"] == 11
    assert 0 < usage["output_tokens"] < len(sentence * 20)  # the pieces decoded before the cut


def test_structured_replies_are_never_cut_for_repeating():
    steps = ", ".join(
        '{"tool": "web_search", "input": "서울 날씨 검색 결과 요약"}' for _ in range(4)
    )
    reply = '{"plan": [' + steps + "]}"
    schema = {"type": "object", "properties": {"plan": {"type": "array"}}}
    model = FakeLocal(replies=[reply])
    out = model.invoke("계획", response_format={"type": "json_object", "schema": schema})
    assert out.content == reply


def test_the_repetition_penalty_applies_to_prose_and_never_to_json():
    model = FakeLocal(replies=["답", "{}", '{"answer": "답"}'], repeat_penalty=1.1)
    model.invoke("제5조?")
    model.invoke("계획", response_format={"type": "json_object", "schema": {"type": "object"}})
    model.bind_tools([get_weather]).invoke("날씨?")  # the answer rides inside a JSON reply
    penalties = [model._sampling(req)["repeat_penalty"] for req in model.requests]
    assert penalties == [1.1, 1.0, 1.0]
