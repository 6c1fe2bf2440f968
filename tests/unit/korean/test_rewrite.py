"""A follow-up's standalone rewrite is kept only when it says what the user said.

The bad rewrites below are ones the default local model gave for these conversations.
"""

from __future__ import annotations

import pytest

from dure.korean.intent import decide_intent
from dure.korean.rewrite import checked, standalone
from dure.llm import ModelSet
from dure.settings import Settings
from dure.testing import ScriptedChatModel

NOTICE = [
    {"role": "user", "content": "계약 해지 조건 알려줘"},
    {"role": "assistant", "content": "제12조에 따르면 30일 전 서면 통지로 해지할 수 있어요."},
]
STEW = [
    {"role": "user", "content": "김치찌개 레시피 알려줘"},
    {"role": "assistant", "content": "돼지고기와 김치를 볶다가 물을 붓고 20분 끓이세요."},
]
SUWON = [
    {"role": "user", "content": "수원 맛집 알려줘"},
    {"role": "assistant", "content": "수원 통닭거리가 유명합니다."},
]


@pytest.mark.parametrize(
    ("message", "history", "rewrite"),
    [
        ("된장찌개는?", STEW, "김치찌개는?"),  # the user's dish replaced
        ("다시 한번 설명해줄래", NOTICE, "죄송합니다, 계약 해지 조건을 알려드릴 수 없습니다."),
        ("서면 통지는 이메일도 돼?", NOTICE, "서면 통지와 이메일 통지 모두 가능吗?"),  # Chinese
        ("그거 위반하면?", NOTICE, "그거 위반하면 30일 전 서면 통지로 해지할 수 있어요."),  # copied
        ("모레는?", STEW, "모레는?"),  # nothing added
        ("영어로 번역해줘", STEW, ""),
    ],
)
def test_an_unfaithful_rewrite_gives_way_to_the_message_and_the_earlier_request(
    message: str, history: list[dict[str, str]], rewrite: str
) -> None:
    assert checked(rewrite, message, history) == standalone(message, history)
    assert standalone(message, history) == f"{message} (앞선 요청: {history[0]['content']})"


@pytest.mark.parametrize(
    ("message", "history", "rewrite"),
    [
        ("된장찌개는?", STEW, "된장찌개 레시피 알려줘"),
        ("2인분 기준이야?", STEW, "2인분 기준 김치찌개 레시피야?"),
        ("아니 수원 말고 용인", SUWON, "용인 맛집 추천"),  # what is taken back may go
        ("IFC 근처는?", SUWON, "ifc 근처 맛집 알려줘"),  # case aside
    ],
)
def test_a_faithful_rewrite_is_kept(
    message: str, history: list[dict[str, str]], rewrite: str
) -> None:
    assert checked(rewrite, message, history) == rewrite


def test_a_new_question_keeps_its_own_words() -> None:
    assert checked("김치찌개는?", "된장찌개는?", STEW, follows=False) == "된장찌개는?"
    assert standalone("안녕", []) == "안녕"


async def test_the_intent_decision_checks_the_models_rewrite(settings: Settings) -> None:
    model = ScriptedChatModel([{"rewritten_query": "김치찌개는?"}])
    d = await decide_intent("된장찌개는?", STEW, ModelSet(settings, model), "-")
    assert d.intent == "follow_up" and len(model.calls) == 1
    assert d.rewritten_query == "된장찌개는? (앞선 요청: 김치찌개 레시피 알려줘)"
