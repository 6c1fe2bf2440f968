"""The tool-call schema, the Korean tool prompt, reply parsing and the incremental answer decoder."""

from __future__ import annotations

import json

import pytest
from langchain_core.utils.function_calling import convert_to_openai_tool
from llama_cpp.llama_grammar import LlamaGrammar, json_schema_to_gbnf
from pydantic import BaseModel, Field

from dure.llm.constrained import (
    MAX_TOOL_CALLS,
    AnswerStream,
    ToolReplyError,
    decode_json_string,
    parse_reply,
    plan_tools,
    reply_schema,
    tools_prompt,
)


class Address(BaseModel):
    city: str
    district: str | None = None


class Delivery(BaseModel):
    """배송지를 등록합니다."""

    address: Address
    items: list[str] = Field(description="품목")


TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "도시의 날씨를 알려 줍니다.",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string", "title": "City"}},
                "required": ["city"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "calculator",
            "description": "수식을 계산합니다.",
            "parameters": {
                "type": "object",
                "properties": {"expression": {"type": "string"}},
                "required": ["expression"],
            },
        },
    },
    # A schema with `$defs`, as pydantic writes nested models when refs are kept.
    {
        "type": "function",
        "function": {
            "name": "register",
            "description": "배송지를 등록합니다.",
            "parameters": Delivery.model_json_schema(),
        },
    },
]


def test_tool_choice_is_normalised():
    assert plan_tools(None, "auto", None) is None
    assert plan_tools(TOOLS, "none", None) is None
    assert plan_tools(TOOLS, None, None).mode == "auto"
    assert plan_tools(TOOLS, "auto", None).mode == "auto"
    for forced in ("any", "required", True):
        plan = plan_tools(TOOLS, forced, None)
        assert plan.mode == "forced" and plan.only is None
    by_name = plan_tools(TOOLS, "calculator", False)
    assert (by_name.mode, by_name.only, by_name.names, by_name.parallel) == (
        "forced",
        "calculator",
        ["calculator"],
        False,
    )
    as_dict = plan_tools(TOOLS, {"type": "function", "function": {"name": "get_weather"}}, None)
    assert as_dict.only == "get_weather"
    with pytest.raises(ValueError, match="unknown tool 'send_mail'"):
        plan_tools(TOOLS, "send_mail", None)


def test_auto_schema_allows_an_answer_or_calls_with_each_tool_name_fixed():
    schema = reply_schema(plan_tools(TOOLS, "auto", None))
    with_calls, answer = schema["anyOf"]
    assert answer["properties"] == {"answer": {"type": "string"}}
    calls = with_calls["properties"]["tool_calls"]
    assert (calls["minItems"], calls["maxItems"]) == (1, MAX_TOOL_CALLS)
    names = [item["properties"]["name"] for item in calls["items"]["anyOf"]]
    assert names == [{"const": "get_weather"}, {"const": "calculator"}, {"const": "register"}]
    # The nested model's definition moved to the root, where references resolve.
    register_args = calls["items"]["anyOf"][2]["properties"]["arguments"]
    assert register_args["properties"]["address"] == {"$ref": "#/$defs/t2_Address"}
    assert "Address" in json.dumps(schema["$defs"]["t2_Address"])


def test_forced_schema_has_no_answer_and_a_named_choice_allows_only_that_tool():
    forced = reply_schema(plan_tools(TOOLS, "required", None))
    assert forced["required"] == ["tool_calls"] and "anyOf" not in forced
    only = reply_schema(plan_tools(TOOLS, "calculator", False))
    items = only["properties"]["tool_calls"]["items"]
    assert items["properties"]["name"] == {"const": "calculator"}
    assert only["properties"]["tool_calls"]["maxItems"] == 1


@pytest.mark.parametrize("choice", ["auto", "required", "register"])
def test_schemas_compile_to_llama_cpp_grammars(choice):
    schema = json.dumps(reply_schema(plan_tools(TOOLS, choice, None)))
    LlamaGrammar.from_json_schema(schema, verbose=False)  # llama.cpp accepts the grammar
    gbnf = json_schema_to_gbnf(schema)
    assert '"\\"tool_calls\\""' in gbnf
    assert ("answer" in gbnf) == (choice == "auto")


def test_langchain_tools_convert_to_compilable_schemas():
    tools = [convert_to_openai_tool(Delivery)]
    schema = reply_schema(plan_tools(tools, "Delivery", None))
    LlamaGrammar.from_json_schema(json.dumps(schema), verbose=False)


def test_the_tool_prompt_is_korean_and_names_every_tool():
    auto = tools_prompt(plan_tools(TOOLS, "auto", None))
    assert "# 도구" in auto and '{"answer": "..."}' in auto
    assert "완전한 문장" in auto  # not a word to copy: the 1.5B model once answered "답변"
    for tool in TOOLS:
        assert f"- {tool['function']['name']}: {tool['function']['description']}" in auto
    assert '"title"' not in auto
    assert "반드시 `calculator` 도구를 호출하세요" in tools_prompt(
        plan_tools(TOOLS, "calculator", None)
    )


def test_replies_parse_into_answers_or_tool_calls_with_fresh_ids():
    assert parse_reply('{"answer": "안녕하세요"}').answer == "안녕하세요"
    reply = parse_reply(
        '{"tool_calls": [{"name": "get_weather", "arguments": {"city": "서울"}},'
        ' {"name": "calculator", "arguments": {"expression": "1+1"}}]}'
    )
    assert reply.answer is None
    assert [(c["name"], c["args"]) for c in reply.tool_calls] == [
        ("get_weather", {"city": "서울"}),
        ("calculator", {"expression": "1+1"}),
    ]
    ids = [c["id"] for c in reply.tool_calls]
    assert len(set(ids)) == 2 and all(i.startswith("call_") for i in ids)
    with pytest.raises(ToolReplyError):
        parse_reply('{"tool_calls": [{"name": "get_weather", "argum')


def test_the_answer_streams_as_it_is_decoded_escapes_included():
    text = '줄1\n"인용" \\ 탭\t é 😀 끝'
    raw = " " + json.dumps({"answer": text})  # ASCII escapes: \n \" \\ \t \u00e9 \ud83d\ude00
    stream = AnswerStream()
    pieces = [stream.feed(ch) for ch in raw]  # one character at a time: escapes arrive split
    assert stream.started
    assert "".join(pieces) == text == stream.emitted
    assert sum(1 for p in pieces if p) > 10  # it streamed, not all at the end


def test_a_tool_call_reply_streams_no_answer_text():
    stream = AnswerStream()
    for ch in '{"tool_calls": [{"name": "x", "arguments": {"answer": "no"}}]}':
        assert stream.feed(ch) == ""
    assert not stream.started


def test_decoding_stops_before_an_unfinished_escape():
    assert decode_json_string("ab\\", 0) == ("ab", 2, False)
    assert decode_json_string("ab\\u00", 0) == ("ab", 2, False)
    assert decode_json_string("\\ud83d", 0) == ("", 0, False)  # half a surrogate pair
    assert decode_json_string('a\\"b" rest', 0) == ('a"b', 5, True)
