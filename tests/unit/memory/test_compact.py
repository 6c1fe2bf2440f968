"""One memory step with a scripted summariser: what it asks, what it removes, what it keeps."""

from __future__ import annotations

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langgraph.graph.message import add_messages

from dure.memory import SUMMARY_SEPARATOR, compact, split_summaries
from dure.testing import ScriptedChatModel, tool_call


def _turns(n: int, start: int = 0) -> list[BaseMessage]:
    out: list[BaseMessage] = []
    for i in range(start, start + n):
        out += [HumanMessage(f"질문 {i}", id=f"h{i}"), AIMessage(f"답 {i}", id=f"a{i}")]
    return out


async def test_below_the_window_nothing_happens() -> None:
    model = ScriptedChatModel([])
    assert await compact(model, _turns(4) + [HumanMessage("q", id="x")], "") is None
    assert model.calls == []


async def test_ten_messages_become_five_and_a_summary() -> None:
    model = ScriptedChatModel(["핵심 사실:\n- 사용자 이름: 철수"])
    messages = _turns(5)
    result = await compact(model, messages, "")
    assert result is not None
    assert result.summary == "핵심 사실:\n- 사용자 이름: 철수"
    assert [m.id for m in result.removed] == ["h0", "a0", "h1", "a1", "h2"]
    assert result.kept == 5
    # Applied through the state reducer, RemoveMessage leaves exactly the recent five.
    after = add_messages(messages, result.removals())
    assert [m.id for m in after] == ["a2", "h3", "a3", "h4", "a4"]
    assert len(model.calls) == 1


async def test_the_summariser_is_told_to_keep_facts_and_carry_old_ones() -> None:
    model = ScriptedChatModel(["새 요약"])
    messages: list[BaseMessage] = [
        HumanMessage("내 이름은 철수고 마감은 3월 15일, 예산은 1억원이야", id="h0"),
        AIMessage("알겠습니다.", id="a0"),
        HumanMessage("1억원의 10%는?", id="h1"),
        tool_call("calculator", expression="100000000 * 0.1").model_copy(update={"id": "a1"}),
    ]
    call_id = messages[-1].tool_calls[0]["id"]
    messages += [
        ToolMessage("10000000", tool_call_id=call_id, name="calculator", id="t1"),
        AIMessage("1천만 원입니다.", id="a2"),
        *_turns(2, start=5),
    ]
    previous = SUMMARY_SEPARATOR.join(
        ["핵심 사실:\n- 회의 장소: 본사 3층", "핵심 사실:\n- 담당자: 영희"]
    )
    result = await compact(model, messages, previous)
    assert result is not None
    system, request = model.calls[0].messages
    for rule in ("사람 이름", "날짜", "금액", "결정", "원문 그대로", "[이전 요약]은 참고용"):
        assert rule in system.content
    text = str(request.content)
    assert "[대화 기록 1]\n핵심 사실:\n- 회의 장소: 본사 3층" in text  # previous facts shown
    assert "[대화 기록 2]" in text and "담당자: 영희" in text
    assert "사용자: 내 이름은 철수고 마감은 3월 15일, 예산은 1억원이야" in text
    assert 'AI(도구 호출): calculator({"expression": "100000000 * 0.1"})' in text
    assert "도구 결과(calculator): 10000000" in text
    assert len(split_summaries(result.summary)) == 3


async def test_an_empty_summary_keeps_every_message() -> None:
    model = ScriptedChatModel(["   "])
    assert await compact(model, _turns(5), "") is None


async def test_summaries_slide_over_repeated_compactions() -> None:
    model = ScriptedChatModel([f"요약{i}" for i in range(1, 5)])
    messages: list[BaseMessage] = _turns(5)
    summary = ""
    for round_ in range(4):
        result = await compact(model, messages, summary)
        assert result is not None
        summary = result.summary
        messages = add_messages(messages, result.removals())
        assert len(messages) == 5
        messages = add_messages(messages, _turns(3, start=10 * (round_ + 1)))
    # 요약1 slid out of the window; what it said was carried into the newest summary.
    assert split_summaries(summary) == ["요약2", "요약3", "핵심 사실:\n- 요약1\n요약4"]


async def test_facts_survive_sliding_out_of_the_window() -> None:
    replies = [f"핵심 사실:\n- 사실 {i}: 값 {i}\n대화 흐름: {i}번째 대화" for i in range(1, 8)]
    model = ScriptedChatModel(replies)
    messages: list[BaseMessage] = _turns(5)
    summary = ""
    for round_ in range(7):
        result = await compact(model, messages, summary)
        assert result is not None
        summary = result.summary
        messages = add_messages(messages, result.removals())
        messages = add_messages(messages, _turns(3, start=10 * (round_ + 1)))
    window = split_summaries(summary)
    assert len(window) == 3
    kept = "\n".join(window)
    assert all(f"- 사실 {i}: 값 {i}" in kept for i in range(1, 8))  # none lost
    assert all(kept.count(f"- 사실 {i}:") == 1 for i in range(1, 8))  # none repeated
    assert "1번째 대화" not in kept  # only the facts are carried, not the old gist
