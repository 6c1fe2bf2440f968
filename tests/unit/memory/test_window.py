"""Seed 002's memory arithmetic: 10 → 5 kept, summaries 1..4 sliding to the last 3, and a cut
that never separates an AI message's tool calls from their results."""

from __future__ import annotations

import itertools

import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from dure.memory import (
    KEEP_RECENT,
    MAX_MESSAGES,
    MAX_SUMMARIES,
    SUMMARY_SEPARATOR,
    add_summary_to_window,
    cut_index,
    format_summary_for_prompt,
    needs_summary,
    split_summaries,
)


def test_the_seeds_numbers() -> None:
    assert (MAX_MESSAGES, KEEP_RECENT, MAX_SUMMARIES) == (10, 5, 3)
    assert SUMMARY_SEPARATOR == "\n---SUMMARY_BREAK---\n"


def test_summaries_slide_to_the_last_three() -> None:
    window = ""
    expected = [
        ["요약1"],
        ["요약1", "요약2"],
        ["요약1", "요약2", "요약3"],
        ["요약2", "요약3", "요약4"],  # 요약1 slides out
        ["요약3", "요약4", "요약5"],
    ]
    for n, kept in enumerate(expected, 1):
        window = add_summary_to_window(window, f"요약{n}")
        assert split_summaries(window) == kept
        assert window == SUMMARY_SEPARATOR.join(kept)


def test_first_summary_has_no_leading_separator() -> None:
    assert add_summary_to_window("", "요약1") == "요약1"
    assert add_summary_to_window(None, "  요약1\n") == "요약1"


def test_format_numbers_the_summaries() -> None:
    window = SUMMARY_SEPARATOR.join(["이름: 철수", "마감: 3월 15일", "예산: 1억원"])
    assert format_summary_for_prompt(window) == (
        "[대화 기록 1]\n이름: 철수\n\n[대화 기록 2]\n마감: 3월 15일\n\n[대화 기록 3]\n예산: 1억원"
    )
    assert format_summary_for_prompt("") == ""


def _chat(n: int) -> list[BaseMessage]:
    return [HumanMessage(f"q{i}") if i % 2 == 0 else AIMessage(f"a{i}") for i in range(n)]


def test_ten_messages_trigger_and_five_are_kept() -> None:
    assert not needs_summary(_chat(9))
    messages = _chat(10)
    assert needs_summary(messages)
    cut = cut_index(messages)
    assert cut == 5 and len(messages[cut:]) == KEEP_RECENT


def _exchange(i: int, n_tools: int) -> list[BaseMessage]:
    """One user turn whose answer used `n_tools` tools in one AI message."""
    ids = [f"call_{i}_{k}" for k in range(n_tools)]
    return [
        HumanMessage(f"질문 {i}"),
        AIMessage(
            "",
            tool_calls=[
                {"name": "calculator", "args": {}, "id": c, "type": "tool_call"} for c in ids
            ],
        ),
        *(ToolMessage(f"결과 {c}", tool_call_id=c) for c in ids),
        AIMessage(f"답 {i}"),
    ]


def _well_formed(messages: list[BaseMessage]) -> bool:
    """Every tool result's call is present earlier, and every call has its result."""
    called: set[str] = set()
    answered: set[str] = set()
    for m in messages:
        if isinstance(m, AIMessage):
            called |= {c["id"] for c in m.tool_calls}
        if isinstance(m, ToolMessage):
            if m.tool_call_id not in called:
                return False
            answered.add(m.tool_call_id)
    return called == answered


@pytest.mark.parametrize("keep", [1, 2, 3, 4, 5, 6, 7])
def test_tool_call_pairs_are_never_split(keep: int) -> None:
    # Conversations mixing plain turns and turns with 1-3 tool results, cut at every length.
    for shape in itertools.product([0, 1, 2, 3], repeat=3):
        messages: list[BaseMessage] = []
        for i, n_tools in enumerate(shape):
            messages += (
                _exchange(i, n_tools) if n_tools else [HumanMessage(f"q{i}"), AIMessage("a")]
            )
        # Every length the memory node can see (it runs between turns: no call is pending).
        for length in range(1, len(messages) + 1):
            prefix = messages[:length]
            if not _well_formed(prefix):
                continue
            cut = cut_index(prefix, keep)
            assert _well_formed(prefix[cut:]), (shape, length, keep)
            assert _well_formed(prefix[:cut]), (shape, length, keep)


def test_cut_moves_back_to_keep_the_whole_exchange() -> None:
    messages = [HumanMessage("q0"), AIMessage("a0"), *_exchange(1, 3)]  # 2 + 6 messages
    # Keeping 4 would start at a tool result; the cut moves back to the AI message (5 kept).
    cut = cut_index(messages, 4)
    assert isinstance(messages[cut], AIMessage) and messages[cut].tool_calls
    assert len(messages) - cut == 5


def test_cut_moves_forward_when_the_exchange_is_everything() -> None:
    messages = _exchange(0, 4)[1:]  # AI with 4 calls, 4 results, answer
    cut = cut_index(messages, 3)
    assert messages[cut:] == messages[-1:]
