"""The question: the LLM phrases it, the rules decide what it may ask."""

from __future__ import annotations

from datetime import datetime

from dure.agents.tasks.intents import LUNCH
from dure.agents.tasks.question import (
    QuestionDraft,
    check_draft,
    phrase_question,
    template_question,
)
from dure.agents.tasks.state import ConversationState
from dure.testing import ScriptedChatModel

NOW = datetime.fromisoformat("2025-03-05T10:00:00+09:00")


def conv_with(**slots: object) -> ConversationState:
    conv = ConversationState.for_intent(LUNCH)
    conv.slots.update(slots)
    return conv


def test_template_matches_the_seed() -> None:
    conv = conv_with(location="을지로", party_size=2)
    ack, question = template_question(conv, LUNCH, ["datetime"], NOW)
    assert f"{ack} {question}" == "을지로, 2명으로 확인했습니다. 시간은 언제로 할까요?"


def test_exclusions_are_acknowledged_as_exclusions() -> None:
    conv = conv_with(location="을지로", party_size=2, exclusions=["매운 음식"])
    ack, _ = template_question(conv, LUNCH, ["datetime"], NOW)
    assert ack == "을지로, 2명, 매운 음식 제외로 확인했습니다."


def test_template_asks_several_missing_slots_in_one_question() -> None:
    ack, question = template_question(
        conv_with(), LUNCH, ["location", "datetime", "party_size"], NOW
    )
    assert ack == ""
    assert question == "장소와 시간과 인원을 알려 주시겠어요?"


def test_template_with_a_known_date_asks_only_the_hour() -> None:
    conv = conv_with(location="을지로", party_size=2, date="2025-03-06")
    ack, question = template_question(conv, LUNCH, ["datetime"], NOW)
    assert "3월 6일(목)" in ack
    assert question == "3월 6일(목) 몇 시로 할까요?"


def test_check_rejects_asking_a_filled_slot_again() -> None:
    conv = conv_with(location="을지로", party_size=2)
    asks_party = QuestionDraft(question="몇 분이서 드시고 시간은 언제인가요?")
    names_value = QuestionDraft(question="을지로에서 몇 시에 드실 건가요?")
    good = QuestionDraft(acknowledgement="을지로 2명 확인했어요.", question="몇 시에 드실 건가요?")
    assert "다시 묻습니다" in check_draft(asks_party, conv, LUNCH, ["datetime"], NOW)  # type: ignore[operator]
    assert "다시 묻습니다" in check_draft(names_value, conv, LUNCH, ["datetime"], NOW)  # type: ignore[operator]
    assert check_draft(good, conv, LUNCH, ["datetime"], NOW) is None


def test_check_rejects_a_question_about_nothing_missing_or_two_questions() -> None:
    conv = conv_with(location="을지로", party_size=2)
    off_topic = QuestionDraft(question="예산은 어느 정도세요?")
    two = QuestionDraft(question="몇 시에 드세요? 날짜는요?")
    assert check_draft(off_topic, conv, LUNCH, ["datetime"], NOW) == "빠진 정보를 묻지 않습니다"
    assert check_draft(two, conv, LUNCH, ["datetime"], NOW) == "질문이 하나가 아닙니다"


async def test_one_llm_call_phrases_the_question() -> None:
    model = ScriptedChatModel(
        [
            {
                "pattern": "ASK",
                "acknowledgement": "을지로, 2명 확인했어요.",
                "question": "몇 시에 드실까요?",
            }
        ]
    )
    q = await phrase_question(
        conv_with(location="을지로", party_size=2), LUNCH, ["datetime"], model, NOW
    )
    assert (q.source, q.text) == ("llm", "을지로, 2명 확인했어요. 몇 시에 드실까요?")
    assert len(model.calls) == 1
    assert "빠진 정보: 시간" in model.calls[0].prompt


async def test_a_bad_draft_falls_back_to_the_template() -> None:
    model = ScriptedChatModel(
        [{"pattern": "ASK", "question": "인원은 몇 명이고 시간은 언제인가요?"}]
    )
    q = await phrase_question(
        conv_with(location="을지로", party_size=2), LUNCH, ["datetime"], model, NOW
    )
    assert q.source == "template"
    assert q.text == "을지로, 2명으로 확인했습니다. 시간은 언제로 할까요?"


async def test_malformed_output_falls_back_to_the_template() -> None:
    model = ScriptedChatModel(["시간을 알려주세요"])
    q = await phrase_question(
        conv_with(location="을지로", party_size=2), LUNCH, ["datetime"], model, NOW
    )
    assert q.source == "template"
    assert q.problem and "형식 오류" in q.problem


async def test_an_invalid_value_is_reasked_with_its_reason() -> None:
    conv = conv_with(location="을지로", party_size=2, datetime="2025-03-05T19:00:00+09:00")
    model = ScriptedChatModel(
        [{"pattern": "ASK", "acknowledgement": "", "question": "점심 시간은 몇 시로 할까요?"}]
    )
    q = await phrase_question(conv, LUNCH, ["datetime"], model, NOW)
    assert q.text.startswith("점심 추천은 오전 10시 30분부터 오후 3시 사이 시간만 가능해요.")
    assert "오후 7시" not in model.calls[0].prompt.split("확인된 정보:")[1].split("\n")[0]


async def test_known_values_are_always_acknowledged() -> None:
    model = ScriptedChatModel(
        [
            {"pattern": "ASK", "acknowledgement": "", "question": "시간을 어떻게 선택할까요?"},
            {"pattern": "ASK", "acknowledgement": "좋아요.", "question": "몇 시에 드실까요?"},
        ]
    )
    conv = conv_with(location="을지로", party_size=2)
    for expected in ("시간을 어떻게 선택할까요?", "몇 시에 드실까요?"):
        q = await phrase_question(conv, LUNCH, ["datetime"], model, NOW)
        assert (q.source, q.text) == ("llm", f"을지로, 2명으로 확인했습니다. {expected}")
