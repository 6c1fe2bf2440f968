"""Usage per node and per-turn budgets: a budget ends the turn with an answer, never a raise."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START

from dure.agent import AgentContext, AgentSpec, Answer, Edge
from dure.events import Done, ErrorEvent, Thinking, emit, stream_turn
from dure.events.stream import BUDGET_MESSAGE
from dure.llm import ModelSet
from dure.llm.constrained import ToolReplyError
from dure.settings import Settings
from dure.tags import TOOL_LLM_TAG
from dure.testing import ScriptedChatModel
from dure.usage import UsageTracker

from .helpers import LineState, answer_of, collect, line_graph, run_turn


def calling_node(model: ScriptedChatModel, times: int, replies: list[AIMessage], **config: Any):
    """A node that calls `model` `times` times, keeping each reply (for its usage)."""

    async def node(state: dict[str, Any]) -> dict[str, Any]:
        emit(Thinking(step="work", content=f"{times}번 호출"))
        for i in range(times):
            replies.append(await model.ainvoke(f"{state['question']} #{i}", config=config))
        return {"answer": str(replies[-1].content) if replies else ""}

    return node


async def test_calls_and_tokens_are_counted_per_node() -> None:
    model = ScriptedChatModel(["짧은 계획", "조금 더 긴 중간 결과입니다", "최종 답변을 드립니다"])
    replies: list[AIMessage] = []
    graph = line_graph(
        ("plan", calling_node(model, 2, replies)), ("respond", calling_node(model, 1, replies))
    )
    done = (await run_turn(graph, "보증금 반환 시기"))[-1]
    assert isinstance(done, Done)
    usage = done.usage
    assert usage.llm_calls == 3
    assert usage.by_node["plan"].llm_calls == 2 and usage.by_node["respond"].llm_calls == 1
    # The tracker adds up exactly what the model reported, per node and in total.
    reported = [r.usage_metadata for r in replies]
    assert usage.prompt_tokens == sum(u["input_tokens"] for u in reported)
    assert usage.completion_tokens == sum(u["output_tokens"] for u in reported)
    assert usage.by_node["respond"].completion_tokens == reported[2]["output_tokens"]
    assert usage.by_node["plan"].prompt_tokens == sum(u["input_tokens"] for u in reported[:2])
    assert usage.latency_ms >= usage.by_node["plan"].latency_ms >= 0
    assert done.to_json()["usage"]["by_node"]["plan"]["llm_calls"] == 2


async def test_a_failed_call_still_counts_with_what_it_spent() -> None:
    failure = ToolReplyError("looping tool reply", {"input_tokens": 900, "output_tokens": 512})
    model = ScriptedChatModel([failure, "답"])

    async def node(state: dict[str, Any]) -> dict[str, Any]:
        try:
            await model.ainvoke("첫 호출")
        except ToolReplyError:
            pass
        return {"answer": str((await model.ainvoke("다시")).content)}

    done = (await run_turn(line_graph(("work", node)), "운동화 코스?"))[-1]
    assert isinstance(done, Done)
    assert done.usage.llm_calls == 2 and done.usage.by_node["work"].llm_calls == 2
    assert done.usage.prompt_tokens > 900 and done.usage.completion_tokens > 512


async def test_call_budget_stops_the_next_call_with_an_answer() -> None:
    model = ScriptedChatModel(["하나", "둘", "셋", "넷"])
    graph = line_graph(("loop", calling_node(model, 4, [])))
    events = await run_turn(graph, tracker=UsageTracker(max_llm_calls=2))
    *_, error, done = events
    assert isinstance(error, ErrorEvent) and error.code == "budget"
    assert isinstance(done, Done) and done.content == BUDGET_MESSAGE
    assert done.usage.llm_calls == 2
    assert len(model.calls) == 2  # the third request never reached the model


async def test_token_budget_stops_the_turn() -> None:
    model = ScriptedChatModel(["긴 답변 " * 30, "안 불림"])
    graph = line_graph(("loop", calling_node(model, 2, [])))
    *_, error, done = await run_turn(graph, tracker=UsageTracker(max_tokens=20))
    assert isinstance(error, ErrorEvent) and error.code == "budget"
    assert "tokens" in error.content
    assert isinstance(done, Done) and done.usage.completion_tokens >= 20
    assert len(model.calls) == 1


async def test_tool_llm_calls_are_counted_apart_and_outside_the_budget() -> None:
    model = ScriptedChatModel(["도구 요약 1", "도구 요약 2", "답"])
    graph = line_graph(
        ("tools", calling_node(model, 2, [], tags=[TOOL_LLM_TAG])),
        ("respond", calling_node(model, 1, [])),
    )
    done = (await run_turn(graph, tracker=UsageTracker(max_llm_calls=1)))[-1]
    assert isinstance(done, Done) and done.content == "답"
    assert done.usage.llm_calls == 1
    assert done.usage.tool_llm_calls == 2
    assert done.usage.by_node["tools"].llm_calls == 0


def _spec(model: ScriptedChatModel, calls: int) -> AgentSpec:
    node = calling_node(model, calls, [])

    async def loop(state: dict[str, Any], *, deps: None) -> dict[str, Any]:
        return await node(state)

    return AgentSpec(
        name="budget-test",
        title="예산 시험",
        state=LineState,
        deps=lambda ctx: None,
        nodes={"loop": loop},
        edges=[Edge(START, "loop"), Edge("loop", END)],
        make_input=lambda turn, deps: {"question": turn.message},
        output=lambda values: Answer(*answer_of(values)),
    )


@pytest.mark.parametrize("limit", [1, 3])
async def test_stream_turn_applies_the_configured_budget(
    settings: Settings, monkeypatch: pytest.MonkeyPatch, limit: int
) -> None:
    model = ScriptedChatModel(["응답"] * 10)
    turn_settings = settings.model_copy(update={"max_llm_calls_per_turn": limit})
    ctx = AgentContext(turn_settings, ModelSet(turn_settings, model), InMemorySaver())
    events = await collect(stream_turn(_spec(model, limit + 1), ctx, "t", "질문"))
    assert [e.type for e in events] == ["thinking", "error", "done"]
    assert len(model.calls) == limit
    assert events[-1].usage.llm_calls == limit


async def test_within_budget_the_turn_is_untouched(settings: Settings) -> None:
    model = ScriptedChatModel(["응답"] * 3)
    turn_settings = settings.model_copy(update={"max_llm_calls_per_turn": 3})
    ctx = AgentContext(turn_settings, ModelSet(turn_settings, model), InMemorySaver())
    events = await collect(stream_turn(_spec(model, 3), ctx, "t", "질문"))
    assert [e.type for e in events] == ["thinking", "done"]
    assert events[-1].content == "응답"
