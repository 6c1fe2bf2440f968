"""Writing parses into the conversation across turns: partial dates, corrections, clearing."""

from __future__ import annotations

from datetime import datetime

from dure.agents.tasks.filling import apply_parse
from dure.agents.tasks.intents import LUNCH
from dure.agents.tasks.state import ConversationState
from dure.korean.slots.parser import parse_slots

NOW = datetime.fromisoformat("2025-03-05T10:00:00+09:00")


def say(conv: ConversationState, text: str) -> list[str]:
    return apply_parse(conv, parse_slots(text, LUNCH, NOW), LUNCH, NOW)


def test_a_date_waits_for_its_time() -> None:
    conv = ConversationState.for_intent(LUNCH)
    say(conv, "내일 점심 을지로 2명")
    assert conv.slots == {"location": "을지로", "party_size": 2, "date": "2025-03-06"}
    assert conv.pending_slots == ["datetime"]
    say(conv, "12시 반")
    assert conv.slots["datetime"] == "2025-03-06T12:30:00+09:00"
    assert "date" not in conv.slots
    assert conv.pending_slots == []


def test_a_new_date_keeps_the_time_and_a_new_time_keeps_the_date() -> None:
    conv = ConversationState.for_intent(LUNCH)
    say(conv, "내일 12시")
    say(conv, "모레로 바꿔줘")
    assert conv.slots["datetime"] == "2025-03-07T12:00:00+09:00"
    say(conv, "1시로")
    assert conv.slots["datetime"] == "2025-03-07T13:00:00+09:00"


def test_a_correction_overwrites_and_reports_the_change() -> None:
    conv = ConversationState.for_intent(LUNCH)
    say(conv, "을지로 3명")
    assert say(conv, "아 3명 말고 4명") == ["party_size"]
    assert conv.slots == {"location": "을지로", "party_size": 4}


def test_people_joining_or_dropping_out_change_the_party() -> None:
    conv = ConversationState.for_intent(LUNCH)
    say(conv, "을지로 3명")
    assert say(conv, "한 명 더 온대") == ["party_size"]
    assert conv.slots["party_size"] == 4
    say(conv, "두 명은 못 온대요")
    assert conv.slots["party_size"] == 2
    say(conv, "두 명 추가")
    assert conv.slots["party_size"] == 4
    say(conv, "한 명 더 와서 6명")  # a size said outright wins
    assert conv.slots["party_size"] == 6


def test_a_change_with_no_party_yet_fills_nothing() -> None:
    conv = ConversationState.for_intent(LUNCH)
    assert say(conv, "한 명 더 온대") == []
    assert "party_size" not in conv.slots


def test_a_bare_negation_removes_the_value() -> None:
    conv = ConversationState.for_intent(LUNCH)
    say(conv, "을지로 한식")
    say(conv, "한식 말고")
    assert "cuisine" not in conv.slots
    assert conv.slots["location"] == "을지로"
