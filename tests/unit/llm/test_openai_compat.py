"""The OpenAI-compatible provider's own logic: text tool calls, stream buffering, keys."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessageChunk
from langchain_core.outputs import ChatGenerationChunk

from dure.errors import DureError
from dure.llm.openai_compat import (
    OpenAICompatChatModel,
    _TextCallBuffer,
    openai_chat_model,
    parse_text_tool_calls,
)
from dure.settings import Settings

NAMES = {"get_weather", "calculator"}


@pytest.mark.parametrize(
    "text",
    [
        '```json\n{"name": "get_weather", "arguments": {"city": "서울"}}\n```',
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "서울"}}\n</tool_call>',
        '{"name": "get_weather", "arguments": "{\\"city\\": \\"서울\\"}"}',
        '  {"name": "get_weather", "parameters": {"city": "서울"}}  ',
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "서울"}}',  # never closed
    ],
)
def test_text_tool_calls_in_the_usual_forms_are_recognised(text):
    rest, calls = parse_text_tool_calls(text, NAMES)
    assert rest == ""
    assert [(c["name"], c["args"]) for c in calls] == [("get_weather", {"city": "서울"})]
    assert calls[0]["id"].startswith("call_")


def test_several_calls_and_text_around_tagged_calls():
    text = (
        "확인해 볼게요.\n"
        '<tool_call>{"name": "get_weather", "arguments": {"city": "서울"}}</tool_call>\n'
        '<tool_call>{"name": "calculator", "arguments": {"expression": "2*3"}}</tool_call>'
    )
    rest, calls = parse_text_tool_calls(text, NAMES)
    assert rest == "확인해 볼게요."
    assert [c["name"] for c in calls] == ["get_weather", "calculator"]
    fenced_list = '```json\n[{"name": "calculator", "arguments": {"expression": "1"}}]\n```'
    assert parse_text_tool_calls(fenced_list, NAMES)[1][0]["name"] == "calculator"


@pytest.mark.parametrize(
    "text",
    [
        "서울은 맑습니다.",
        '```json\n{"name": "send_mail", "arguments": {}}\n```',  # not a bound tool
        '```json\n{"city": "서울"}\n```',  # JSON, but no call
        '예시입니다:\n```json\n{"name": "get_weather", "arguments": {"city": "서울"}}\n```',
        '{"name": "get_weather", "arguments": [1, 2]}',
        "```json\n{broken\n```",
    ],
)
def test_answers_stay_answers(text):
    assert parse_text_tool_calls(text, NAMES) is None


def _chunks(*texts: str) -> list[ChatGenerationChunk]:
    return [ChatGenerationChunk(message=AIMessageChunk(content=t)) for t in texts]


def test_the_stream_buffer_passes_answers_through_at_once():
    buffer = _TextCallBuffer(NAMES)
    out = [c for chunk in _chunks("", "서울", "은 맑", "습니다.") for c in buffer.push(chunk)]
    out += buffer.finish()
    assert [c.text for c in out] == ["", "서울", "은 맑", "습니다."]
    assert [c.text for c in buffer.push(_chunks("!")[0])] == ["!"]


def test_the_stream_buffer_turns_a_fenced_call_into_a_tool_call_chunk():
    buffer = _TextCallBuffer(NAMES)
    parts = [
        "``",
        "`json\n",
        '{"name": "calculator", ',
        '"arguments": {"expression": "2*3"}}',
        "\n```",
    ]
    assert [c for chunk in _chunks(*parts) for c in buffer.push(chunk)] == []
    (final,) = buffer.finish()
    assert final.message.content == ""
    (tc,) = final.message.tool_call_chunks
    assert tc["name"] == "calculator" and tc["args"] == '{"expression": "2*3"}'


def test_the_stream_buffer_releases_json_that_is_not_a_call():
    buffer = _TextCallBuffer(NAMES)
    for chunk in _chunks("{", '"a": 1}'):
        assert buffer.push(chunk) == []
    assert "".join(c.text for c in buffer.finish()) == '{"a": 1}'


def test_without_tools_nothing_is_held_back():
    buffer = _TextCallBuffer(set())
    assert [c.text for c in buffer.push(_chunks("```")[0])] == ["```"]


def test_a_missing_key_for_openai_is_a_clear_error(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(DureError, match="OpenAI API 키가 없습니다"):
        openai_chat_model(Settings(provider="openai"), "fast")


def test_a_local_server_needs_no_key_and_settings_reach_the_client(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    s = Settings(
        provider="openai",
        base_url="http://127.0.0.1:8080/v1/",
        model_smart="qwen2.5",
        request_timeout=7.5,
        max_retries=5,
        json_mode="json_object",
    )
    model = openai_chat_model(s, "smart")
    assert isinstance(model, OpenAICompatChatModel)
    assert (model.model_name, model.openai_api_base) == ("qwen2.5", "http://127.0.0.1:8080/v1")
    assert (model.request_timeout, model.max_retries, model.json_mode) == (7.5, 5, "json_object")
    assert model.root_client.max_retries == 5
