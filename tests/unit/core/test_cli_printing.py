"""How `dure ask` lays out a streamed turn: notes never run on from part of the answer."""

from __future__ import annotations

from dure import cli
from dure.events import Event, Thinking, Token


def _printed(*events: Event) -> str:
    with cli.out.capture() as captured:
        previous: Event | None = None
        for event in events:
            cli._print_event(event, False, previous)
            previous = event
    return captured.get()


def test_a_note_after_part_of_the_answer_starts_its_own_line() -> None:
    shown = _printed(
        Token(content="제14조와 제2조의 원문을 그대로 전합니다."),
        Thinking(step="respond", content="질문을 되풀이한 문장 1개를 뺐습니다."),
    )
    assert "전합니다.\n· respond: 질문을 되풀이한 문장 1개를 뺐습니다." in shown


def test_a_note_after_a_finished_line_adds_no_blank_line() -> None:
    shown = _printed(
        Token(content="첫 줄입니다.\n"),
        Thinking(step="respond", content="메모"),
    )
    assert shown == "첫 줄입니다.\n· respond: 메모\n"
