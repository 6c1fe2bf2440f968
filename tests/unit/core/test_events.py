"""Typed events as JSON, and the one entry point that streams a graph as events."""

from __future__ import annotations

import json
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_stream_writer

import demo_agent
from dure.agent import AgentContext
from dure.events import (
    Done,
    ErrorEvent,
    EvaluationResult,
    Generating,
    Planning,
    Question,
    Slots,
    SourcesEvent,
    Thinking,
    Token,
    ToolResultEvent,
    ToolSelected,
    emit,
    parse_event,
    stream_turn,
)
from dure.events.stream import FAILURE_MESSAGE
from dure.llm import ModelSet
from dure.settings import Settings
from dure.sources import Source
from dure.tags import ANSWER_TAG
from dure.testing import ScriptedChatModel
from dure.usage import NodeUsage, Usage

from .helpers import collect, line_graph, run_turn

SOURCE = Source(doc="표준계약서", kind="standard", article_no="제5조", article_title="목적")

EVERY_EVENT = [
    Thinking(step="scope_validator", content="질문 범위를 확인하는 중"),
    Planning(content="도구를 고르는 중"),
    ToolSelected(content="2개 도구", tools=[{"name": "search", "args": {"query": "보증금"}}]),
    ToolResultEvent(content="3건", tool="search", ok=False, step={"id": 1, "status": "failed"}),
    EvaluationResult(content="부족", is_sufficient=False, missing_info="지급 기한"),
    Slots(content={"date": "내일", "place": None}, missing=["place"]),
    Question(content="어디로 갈까요?"),
    Generating(content="답변 작성 중"),
    Token(content="안녕"),
    SourcesEvent(content=[SOURCE]),
    ErrorEvent(code="budget", content="처리 한도 초과"),
    Done(
        content="답",
        sources=[SOURCE],
        usage=Usage(llm_calls=2, by_node={"respond": NodeUsage(llm_calls=2)}),
        waiting=False,
    ),
]


@pytest.mark.parametrize("event", EVERY_EVENT, ids=lambda e: e.type)
def test_event_json_round_trip(event: Any) -> None:
    data = event.to_json()
    assert data["type"] == event.type
    assert "content" in data
    text = json.dumps(data, ensure_ascii=False)
    assert parse_event(json.loads(text)) == event


def test_event_json_shape() -> None:
    assert Thinking(step="planner", content="계획 중").to_json() == {
        "type": "thinking",
        "content": "계획 중",
        "step": "planner",
    }
    assert ErrorEvent(code="budget", content="한도").to_json() == {
        "type": "error",
        "content": "한도",
        "code": "budget",
    }
    done = Done(content="답", sources=[SOURCE]).to_json()
    assert set(done) == {"type", "content", "sources", "usage", "waiting"}
    assert done["sources"][0]["article_no"] == "제5조"
    assert {"llm_calls", "prompt_tokens", "completion_tokens", "by_node"} <= set(done["usage"])


def test_unknown_event_type_is_rejected() -> None:
    with pytest.raises(ValueError):
        parse_event({"type": "telepathy", "content": "?"})


def test_emit_outside_a_graph_is_a_no_op() -> None:
    emit(Thinking(step="x", content="그래프 밖"))


def _answering_graph(model: ScriptedChatModel) -> Any:
    async def plan(state: dict[str, Any]) -> dict[str, Any]:
        emit(Thinking(step="plan", content="계획하는 중"))
        await model.ainvoke("계획")  # not an answer: its text must never become tokens
        emit(Planning(content="검색하기로 함"))
        get_stream_writer()({"type": "tool_selected", "content": "1개", "tools": []})
        return {}

    async def respond(state: dict[str, Any]) -> dict[str, Any]:
        emit(Generating(content="답변 작성 중"))
        reply = await model.ainvoke(state["question"], config={"tags": [ANSWER_TAG]})
        emit(SourcesEvent(content=[SOURCE]))
        return {"answer": reply.content}

    return line_graph(("plan", plan), ("respond", respond))


async def test_stream_events_order_tokens_and_done() -> None:
    model = ScriptedChatModel(["비밀 계획 텍스트", "제5조에 따르면 목적은 개발입니다."])
    events = await run_turn(_answering_graph(model), "목적이 뭐야?")
    kinds = [e.type for e in events]
    first_token = kinds.index("token")
    assert kinds[:first_token] == ["thinking", "planning", "tool_selected", "generating"]
    assert set(kinds[first_token : kinds.index("sources")]) == {"token"}
    assert kinds[-2:] == ["sources", "done"]
    assert isinstance(events[2], ToolSelected)  # a dict written to the stream is typed too
    tokens = [e.content for e in events if isinstance(e, Token)]
    assert len(tokens) > 1
    assert "".join(tokens) == "제5조에 따르면 목적은 개발입니다."
    assert not any("비밀" in t for t in tokens)
    done = events[-1]
    assert isinstance(done, Done)
    assert done.content == "제5조에 따르면 목적은 개발입니다."
    assert done.usage.llm_calls == 2 and set(done.usage.by_node) == {"plan", "respond"}


async def test_a_failing_node_ends_the_turn_with_an_error_and_an_answer() -> None:
    async def broken(state: dict[str, Any]) -> dict[str, Any]:
        raise KeyError("없는 키")

    *_, error, done = await run_turn(line_graph(("broken", broken)))
    assert isinstance(error, ErrorEvent) and error.code == "internal"
    assert "없는 키" not in error.content  # internals stay in the log, the user gets Korean
    assert isinstance(done, Done) and done.content == FAILURE_MESSAGE


def _demo_context(settings: Settings, model: ScriptedChatModel) -> AgentContext:
    return AgentContext(
        settings=settings,
        models=ModelSet(settings, model),
        checkpointer=InMemorySaver(),
        options={"model": model},
    )


async def test_interrupt_asks_and_the_next_turn_resumes(settings: Settings) -> None:
    model = ScriptedChatModel(demo_agent.respond)
    ctx = _demo_context(settings, model)
    first = await collect(stream_turn(demo_agent.AGENT, ctx, "t", "내 이름이 뭐야?"))
    assert [e.type for e in first] == ["thinking", "question", "done"]
    assert first[1].content == demo_agent.ASK_FOR_NAME
    assert first[-1].waiting and first[-1].content == demo_agent.ASK_FOR_NAME
    assert model.calls == []  # waiting for the user costs no LLM call

    second = await collect(stream_turn(demo_agent.AGENT, ctx, "t", "지수"))
    assert second[-1].content == "당신의 이름은 지수입니다."
    assert not second[-1].waiting
    assert [c.node for c in model.calls] == ["answer"]
    # The reply resumed the pending question: it was not taken as a new message.
    graph = demo_agent.AGENT.build(ctx)
    state = await graph.aget_state({"configurable": {"thread_id": "t"}})
    assert [m.content for m in state.values["messages"]][0] == "내 이름이 뭐야?"
    assert len(state.values["messages"]) == 2


async def test_thread_memory_across_turns(settings: Settings) -> None:
    model = ScriptedChatModel(demo_agent.respond)
    ctx = _demo_context(settings, model)
    await collect(stream_turn(demo_agent.AGENT, ctx, "a", "내 이름은 민수야"))
    done = (await collect(stream_turn(demo_agent.AGENT, ctx, "a", "내 이름이 뭐야?")))[-1]
    assert done.content == "당신의 이름은 민수입니다."
    other = (await collect(stream_turn(demo_agent.AGENT, ctx, "b", "내 이름이 뭐야?")))[-1]
    assert other.waiting  # another thread knows nothing


@pytest.mark.parametrize(
    ("message", "reason"), [("   ", "빈 메시지"), ("가" * 101, "너무 깁니다 (최대 100자)")]
)
async def test_bad_messages_are_refused_before_the_graph_runs(
    settings: Settings, message: str, reason: str
) -> None:
    model = ScriptedChatModel([])
    small = settings.model_copy(update={"max_message_chars": 100})
    events = await collect(stream_turn(demo_agent.AGENT, _demo_context(small, model), "t", message))
    error, done = events
    assert isinstance(error, ErrorEvent) and error.code == "bad_message"
    assert reason in error.content
    assert isinstance(done, Done) and done.usage.llm_calls == 0
    assert model.calls == []


async def test_message_at_the_limit_is_accepted(settings: Settings) -> None:
    model = ScriptedChatModel(demo_agent.respond)
    small = settings.model_copy(update={"max_message_chars": 100})
    events = await collect(
        stream_turn(demo_agent.AGENT, _demo_context(small, model), "t", "가" * 100)
    )
    assert events[-1].content == "안녕하세요!"
