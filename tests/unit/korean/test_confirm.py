"""Reading a reply to a confirmation: the task agent's and a tool approval's, one reading."""

from __future__ import annotations

import pytest

from dure.korean.confirm import confirmation


@pytest.mark.parametrize(
    ("text", "reply"),
    [
        ("네 예약해 주세요", "yes"),
        ("ㅇㅇ", "yes"),
        ("승인", "yes"),
        ("실행해줘", "yes"),
        ("yes", "yes"),
        ("아니요", "no"),
        ("거절할게", "no"),
        ("하지 마", "no"),
        ("no", "no"),
        ("취소할래", "cancel"),
        ("됐어 필요 없어", "cancel"),
        ("어떻게 되는 건데?", None),  # sounds like 어 (yes), is a question
        ("내일로 바꿔줘", None),
    ],
)
def test_confirmation(text: str, reply: str | None) -> None:
    assert confirmation(text) == reply
