"""Intent detection: rules first; the fast model only when they cannot tell."""

from __future__ import annotations

from datetime import datetime

from dure.agents.tasks.detect import detect_intent, rule_intent
from dure.testing import ScriptedChatModel

NOW = datetime.fromisoformat("2025-03-05T10:00:00+09:00")


def test_keywords() -> None:
    assert rule_intent("점심 뭐 먹지") == "lunch_recommendation"
    assert rule_intent("회의실 잡아줘") == "meeting_room_booking"
    assert rule_intent("안녕하세요") is None


async def test_rules_make_no_llm_call() -> None:
    model = ScriptedChatModel([])
    assert (await detect_intent("을지로 맛집 2명", None, NOW, model)).how == "rules"
    slots = await detect_intent("을지로에서 2명", None, NOW, model)
    assert (slots.intent, slots.how) == ("lunch_recommendation", "slots")
    follow_up = await detect_intent("4명으로 바꿔줘", "meeting_room_booking", NOW, model)
    assert (follow_up.intent, follow_up.how) == ("meeting_room_booking", "continue")
    assert model.calls == []


async def test_the_fast_model_decides_when_rules_cannot() -> None:
    model = ScriptedChatModel([{"intent": "general"}, {"intent": "no_such_task"}, "not json"])
    assert (await detect_intent("안녕하세요", None, NOW, model)).how == "llm"
    assert (await detect_intent("고마워요", None, NOW, model)).how == "fallback"
    assert (await detect_intent("음", None, NOW, model)).intent == "general"
    assert len(model.calls) == 3
