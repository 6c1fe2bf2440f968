"""`ScriptedChatModel`: every kind of reply, the call record, streaming, exhaustion."""

from __future__ import annotations

import json
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from pydantic import BaseModel

from dure.tags import ANSWER_TAG
from dure.testing import Call, ScriptedChatModel, ScriptExhausted, tool_call, tool_calls

from .helpers import line_graph


class Route(BaseModel):
    route: str
    reason: str


def test_each_kind_of_reply() -> None:
    model = ScriptedChatModel(
        [
            "안녕하세요",
            {"route": "rag", "reason": "문서 질문"},
            [1, 2, 3],
            Route(route="agent", reason="도구"),
            AIMessage(content="직접 만든 메시지"),
            tool_call("calculator", expression="1+1"),
            tool_calls(("weather", {"city": "서울"}), ("search", {"query": "날씨"})),
        ]
    )
    assert model.invoke("a").content == "안녕하세요"
    assert json.loads(model.invoke("b").content) == {"route": "rag", "reason": "문서 질문"}
    assert json.loads(model.invoke("c").content) == [1, 2, 3]
    assert Route.model_validate_json(model.invoke("d").content).route == "agent"
    assert model.invoke("e").content == "직접 만든 메시지"
    single = model.invoke("f")
    assert [(c["name"], c["args"]) for c in single.tool_calls] == [
        ("calculator", {"expression": "1+1"})
    ]
    double = model.invoke("g")
    assert [c["name"] for c in double.tool_calls] == ["weather", "search"]
    assert len({c["id"] for c in double.tool_calls}) == 2
    assert model.remaining == 0


def test_dict_reply_keeps_korean_readable() -> None:
    reply = ScriptedChatModel([{"답": "네"}]).invoke("x")
    assert reply.content == '{"답": "네"}'


def test_exception_reply_is_raised_and_recorded() -> None:
    model = ScriptedChatModel([TimeoutError("느림"), "다시 시도 성공"])
    with pytest.raises(TimeoutError, match="느림"):
        model.invoke("첫 시도")
    assert model.invoke("둘째 시도").content == "다시 시도 성공"
    assert [c.prompt for c in model.calls] == ["첫 시도", "둘째 시도"]


def test_responder_function_sees_the_call() -> None:
    def echo(call: Call) -> str:
        return f"{len(call.messages)}개 메시지, 마지막: {call.messages[-1].content}"

    model = ScriptedChatModel(echo)
    reply = model.invoke([SystemMessage("규칙"), HumanMessage("질문")])
    assert reply.content == "2개 메시지, 마지막: 질문"
    assert model.invoke("또").content == "1개 메시지, 마지막: 또"  # a responder never runs out


def test_unscripted_call_raises_script_exhausted() -> None:
    model = ScriptedChatModel(["하나"])
    model.invoke("1")
    with pytest.raises(ScriptExhausted, match="unscripted call #2"):
        model.invoke("2")
    model.add("셋")
    assert model.invoke("3").content == "셋"


def test_call_record_messages_prompt_and_usage() -> None:
    model = ScriptedChatModel(["가나다라마바"])
    reply = model.invoke([SystemMessage("시스템"), HumanMessage("사용자 질문")])
    (call,) = model.calls
    assert [type(m) for m in call.messages] == [SystemMessage, HumanMessage]
    assert call.prompt == "시스템\n사용자 질문"
    assert call.node is None and call.tools == [] and call.response_format is None
    usage = reply.usage_metadata
    assert usage is not None
    assert usage["output_tokens"] == 2  # 6 characters at about 3 a token
    assert usage["total_tokens"] == usage["input_tokens"] + usage["output_tokens"]


def test_bind_tools_records_tool_names_and_choice() -> None:
    def lookup_article(article_no: str) -> str:
        """조항을 찾습니다."""
        return article_no

    schema = {
        "type": "function",
        "function": {"name": "calculator", "description": "계산", "parameters": {}},
    }
    model = ScriptedChatModel([tool_call("lookup_article", article_no="제5조")])
    bound = model.bind_tools([lookup_article, schema], tool_choice="auto")
    reply = bound.invoke("5조 보여줘")
    assert reply.tool_calls[0]["args"] == {"article_no": "제5조"}
    (call,) = model.calls
    assert call.tools == ["lookup_article", "calculator"]
    assert call.tool_choice == "auto"


def test_bound_response_format_and_tags_are_recorded() -> None:
    fmt = {"type": "json_object", "schema": {"type": "object"}}
    model = ScriptedChatModel(["{}"])
    model.bind(response_format=fmt).invoke("x", config={"tags": ["a", "b", "a"]})
    (call,) = model.calls
    assert call.response_format == fmt
    assert call.tags == ["a", "b"]


async def test_node_and_tags_recorded_inside_a_langgraph_node() -> None:
    model = ScriptedChatModel(["계획", "답변"])

    async def plan(state: dict[str, Any]) -> dict[str, Any]:
        await model.ainvoke("계획 세우기")
        return {}

    async def respond(state: dict[str, Any]) -> dict[str, Any]:
        reply = await model.ainvoke("답하기", config={"tags": [ANSWER_TAG]})
        return {"answer": reply.content}

    async def stream(state: dict[str, Any]) -> dict[str, Any]:
        text = "".join([c.text async for c in model.astream("흘려 쓰기", config={"tags": ["s"]})])
        return {"notes": [text]}

    model.add("흘린 답")
    graph = line_graph(("plan", plan), ("respond", respond), ("stream", stream))
    result = await graph.ainvoke({"question": "q"}, {"configurable": {"thread_id": "1"}})
    assert result["answer"] == "답변"
    assert result["notes"] == ["흘린 답"]
    assert [c.node for c in model.calls] == ["plan", "respond", "stream"]
    assert ANSWER_TAG not in model.calls[0].tags
    assert ANSWER_TAG in model.calls[1].tags
    assert model.calls[2].tags == ["s"]


def test_sync_node_call_is_recorded_with_its_node() -> None:
    model = ScriptedChatModel(["동기 답"])

    def respond(state: dict[str, Any]) -> dict[str, Any]:
        return {"answer": model.invoke("q").content}

    graph = line_graph(("respond", respond))  # type: ignore[arg-type]
    assert graph.invoke({"question": "q"}, {"configurable": {"thread_id": "1"}})["answer"] == (
        "동기 답"
    )
    assert model.calls[0].node == "respond"


def test_streaming_splits_text_into_chunks() -> None:
    model = ScriptedChatModel(["가나다라마바사"], chunk_chars=3)
    chunks = list(model.stream("x"))
    texts = [c.content for c in chunks if c.content]
    assert texts == ["가나다", "라마바", "사"]
    total = chunks[0]
    for c in chunks[1:]:
        total = total + c
    assert total.content == "가나다라마바사"
    assert total.usage_metadata is not None and total.usage_metadata["output_tokens"] == 2
    assert len(model.calls) == 1


async def test_streaming_a_tool_call_reassembles_it() -> None:
    model = ScriptedChatModel([tool_call("search", query="임대차 보증금")])
    total = None
    async for chunk in model.astream("x"):
        total = chunk if total is None else total + chunk
    assert total is not None
    assert [(c["name"], c["args"]) for c in total.tool_calls] == [
        ("search", {"query": "임대차 보증금"})
    ]
