"""The chitchat rule (only whole-message greetings, thanks and laughter skip the classifier), and
sums done in the head."""

from __future__ import annotations

import pytest

from dure.korean.intent import mental_sum
from dure.korean.smalltalk import is_greeting


@pytest.mark.parametrize(
    "text",
    [
        "고마워",
        "고마워!",
        "고마워요~",
        "감사합니다!!",
        "ㅋㅋ",
        "ㅋㅋㅋㅋ",
        "ㅎㅎ",
        "안녕",
        "안녕하세요!",
        "땡큐 ㅋㅋ",
        "Thanks!",
        "hello",
        "고맙!",
        # the endings chat softens thanks with, thanks said twice, and reactions
        "오 대박 감사합니당",
        "고마워용",
        "감사감사",
        "헐 대박 ㅋㅋ",
    ],
)
def test_obvious_chitchat(text: str) -> None:
    assert is_greeting(text)


@pytest.mark.parametrize(
    "text",
    [
        "고마워, 근데 부산 날씨도 알려줘",
        "안녕하세요 서울 날씨 알려줘",
        "ㅋㅋ 그거 검색해줘",
        "네",  # after an offer this is a request, left to the classifier
        "좋아",
        "ㅇㅋ",  # an acknowledgement, like "네"
        "ㅇㅇ",
        "감사 인사 이메일 써줘",
        "와 진짜?",  # a doubt may ask for the answer again
        "대박이다 이거 어디서 사?",
        "",
        "   ",
        "ㅋ" * 29 + "x",  # a long run that fails at its end fails at once, not after every split
    ],
)
def test_anything_else_goes_to_the_classifier(text: str) -> None:
    assert not is_greeting(text)


@pytest.mark.parametrize(
    ("message", "earlier", "head"),
    [
        ("7 더하기 8은?", "", True),
        ("100의 절반이 얼마지", "", True),
        ("20 나누기 4", "", True),
        ("거기에 10 더하면", "5 곱하기 6", True),  # one more step on a sum done in the head
        ("48 곱하기 7은 얼마야", "", False),  # past the times table: the calculator
        ("1.5 * 60", "", False),  # a decimal is not read as its last digit
        ("12+30 계산해 줘", "", False),  # the calculator asked for by name
        ("버전 1.2.3 더하기", "5 곱하기 6", False),
        ("거기에 10 더하면", "1274 곱하기 38", False),
    ],
)
def test_a_sum_done_in_the_head(message: str, earlier: str, head: bool) -> None:
    assert mental_sum(message, earlier) is head
