"""Scope and previous-turn decisions: rules without a model, the bounded model call after."""

from __future__ import annotations

import pytest

from dure.korean.followup import decide_followup, followup_by_rules, references_previous_turn
from dure.korean.scope import decide_scope, scope_by_rules
from dure.korean.smalltalk import is_smalltalk
from dure.llm import ModelSet
from dure.settings import Settings
from dure.testing import ScriptedChatModel


@pytest.mark.parametrize(
    "text",
    [
        "그 참조항목들 내용 정리해서 보여줘봐",
        "그거 다시 설명해줘",
        "그것도 알려줘",
        "방금 말한 조항",
        "아까 그 조항은?",
        "그럼 해지는?",
        "그러면 갑의 의무는?",
        "그렇다면 손해배상은?",
        "위에서 말한 내용",
        "더 자세히 알려줘",
        "왜?",
        "왜요",
        "앞서 말한 거 요약해줘",
        "이전 답변 요약해줘",
    ],
)
def test_previous_turn_references_are_detected(text):
    assert references_previous_turn(text)


@pytest.mark.parametrize(
    "text",
    [
        "그림 그리는 법 알려줘",
        "그룹 채팅 규칙이 있어?",
        "아까시나무 꽃은 언제 펴?",
        "위약금은 얼마야?",
        "계약 기간은?",
        "제5조 내용이 뭐야?",
        "왜 계약서에 위약금이 없어?",
        "그리스 법은 어때?",
        # "other": about the contract as a whole, or about what was just named — left open
        "그 외에 다른 조항은?",
        "그 밖의 비용 관련 조항 있어?",
    ],
)
def test_words_that_merely_contain_reference_syllables_do_not_count(text):
    assert not references_previous_turn(text)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("제5조 내용이 뭐야?", "contract"),
        ("5조의2는?", "contract"),
        ("위약금은 얼마야?", "contract"),
        ("갑의 의무는?", "contract"),
        ("일을 그만두려면 언제까지 말해야 해?", "contract"),
        ("오늘 날씨 어때?", "out_of_scope"),
        ("비트코인 시세 알려줘", "out_of_scope"),
        ("파이썬 코딩 도와줘", "out_of_scope"),
        ("형사 고소하려면 뭐부터 해야 돼?", "out_of_scope"),
        ("교통사고 나면 과실비율은 누가 정해?", "out_of_scope"),
        ("'잘 부탁드립니다' 중국어로 어떻게 말해", "out_of_scope"),
        # a translation, in either order, whatever the phrase says
        ("'계약 해지'를 영어로 하면?", "out_of_scope"),
        ("영어로 '계약서 검토 부탁드립니다' 뭐라고 해?", "out_of_scope"),
        # a word asked in another language, unquoted; translating the contract is no such thing
        ("보증금을 중국어로 뭐라고 해", "out_of_scope"),
        ("임대차라는 말 일본어로 알려줘", "out_of_scope"),
        ("이 계약서 영어로 뭐라고 돼 있어?", "contract"),
        ("계약직인데 계약 만료되면 퇴직금 나와?", "contract"),
        ("안녕하세요!", "smalltalk"),
        ("고마워요 ㅎㅎ", "smalltalk"),
    ],
)
def test_rules_decide_clear_cases_without_a_model(text, kind):
    result = scope_by_rules(text, has_history=False)
    assert result is not None and result.kind == kind and result.decided_by == "rule"


def test_rules_leave_mixed_or_unknown_topics_to_the_model():
    assert scope_by_rules("인생의 의미는 뭘까?", has_history=False) is None
    assert scope_by_rules("게임 개발 계약의 저작권은?", has_history=False) is None
    # "계약직" is a kind of job, no contract term by itself
    assert scope_by_rules("계약직 채용 면접 예상 질문", has_history=False) is None


def test_follow_up_reference_is_in_scope_only_with_history():
    assert scope_by_rules("왜?", has_history=False) is None
    result = scope_by_rules("왜?", has_history=True)
    assert result is not None and result.in_scope
    followup = followup_by_rules("왜?", has_previous=True)
    assert followup is not None and followup.refers_to_previous


DESIGN_TITLES = ["목적", "용역의 범위", "용역 대금", "수정 요청", "지체상금", "저작권"]


def test_a_word_of_the_contracts_own_article_titles_puts_a_question_in_scope():
    asked = scope_by_rules("수정은 몇 번까지 공짜야?", titles=DESIGN_TITLES)
    assert asked is not None and asked.in_scope and "수정" in asked.reason
    assert scope_by_rules("수정은 몇 번까지 공짜야?") is None  # no contract: left to the bank
    # Title words every document has, and off-topic questions, are not signs of this contract.
    assert scope_by_rules("이 모임의 목적이 뭐야?", titles=DESIGN_TITLES) is None
    off = scope_by_rules("주식 수정주가가 뭐야?", titles=DESIGN_TITLES)
    assert off is not None and not off.in_scope


def test_article_reference_makes_the_question_self_contained():
    named = followup_by_rules("제5조 내용이 뭐야?", has_previous=True)
    assert named is not None and not named.refers_to_previous
    pointed = followup_by_rules("그럼 제5조는?", has_previous=True)
    assert pointed is not None and pointed.refers_to_previous


@pytest.mark.usefixtures("llm_tier")
async def test_undecided_question_goes_to_the_fast_model(settings: Settings):
    model = ScriptedChatModel([{"in_scope": True, "reasoning": "계약 관계"}])
    result = await decide_scope("인생의 의미는 뭘까?", ModelSet(settings, model))
    assert result.in_scope and result.decided_by == "llm"
    assert len(model.calls) == 1


@pytest.mark.usefixtures("llm_tier")
async def test_an_open_followup_asks_the_fast_model_once(settings: Settings):
    model = ScriptedChatModel([{"need_previous_context": True, "reasoning": "직전 조항"}])
    previous = [{"role": "user", "content": "해지 조건은?"}, {"role": "assistant", "content": "…"}]
    result = await decide_followup("위약금도 있어?", previous, ModelSet(settings, model))
    assert result.refers_to_previous and result.decided_by == "llm"
    assert len(model.calls) == 1 and "해지 조건은?" in model.calls[0].prompt


def test_smalltalk_is_only_greetings():
    assert is_smalltalk("안녕하세요~ 반갑습니다!")
    assert not is_smalltalk("안녕하세요, 위약금은 얼마죠?")
    assert is_smalltalk("오 ㄳ") and is_smalltalk("아하 감사합니다!")  # interjections too
    assert not is_smalltalk("오늘 날씨")  # "오" inside a word is no interjection
    # the way people type an acknowledgement or thanks
    for typed in ("ㅇㅋ", "ㅇㅇ 고마워", "고맙!", "알았어요~", "옙"):
        assert is_smalltalk(typed), typed
    for asked in ("ㅇㅇ 그럼 내일은?", "고맙지만 하나 더 물어볼게"):
        assert not is_smalltalk(asked), asked
