"""ConversationState: the seed's gate conditions and its three "future" items."""

from __future__ import annotations

from datetime import datetime

from dure.agents.tasks.intents import GENERAL, LUNCH
from dure.agents.tasks.schema import slot_rows
from dure.agents.tasks.state import ConversationState

NOW = datetime.fromisoformat("2025-03-05T10:00:00+09:00")
NOON_THIRTY = "2025-03-05T12:30:00+09:00"


def lunch(**slots: object) -> ConversationState:
    state = ConversationState.for_intent(LUNCH)
    state.slots.update(slots)
    return state


def test_required_slots_come_from_the_intent() -> None:
    state = ConversationState.for_intent(LUNCH)
    assert state.required_slots == ["location", "datetime", "party_size"]
    assert state.optional_slots == ["cuisine", "budget_per_person", "exclusions", "requirements"]
    assert state.pending_slots == state.required_slots


def test_seed_scenario_1_all_required_filled_completes() -> None:
    state = lunch(location="을지로", datetime=NOON_THIRTY, party_size=2)
    assert state.get_missing_required_slots(NOW) == []
    assert state.is_required_slots_filled(NOW)


def test_seed_scenario_2_partial_waits_for_the_user() -> None:
    state = lunch(location="을지로", party_size=2)
    assert state.get_missing_required_slots(NOW) == ["datetime"]
    assert not state.is_required_slots_filled(NOW)


def test_seed_scenario_3_general_intent_has_nothing_to_ask() -> None:
    state = ConversationState.for_intent(GENERAL)
    assert state.required_slots == []
    assert state.is_required_slots_filled(NOW)


def test_optional_slots_never_hold_the_gate() -> None:
    state = lunch(location="을지로", datetime=NOON_THIRTY, party_size=2)
    assert "cuisine" not in state.slots
    assert state.is_required_slots_filled(NOW)


def test_a_request_can_make_an_optional_slot_required() -> None:
    state = ConversationState.for_intent(LUNCH, "예산 맞춰서 점심 추천해줘")
    assert "budget_per_person" in state.required_slots
    assert "budget_per_person" not in state.optional_slots


def test_an_invalid_value_counts_as_missing_with_its_reason() -> None:
    state = lunch(location="을지로", datetime="2025-03-05T19:00:00+09:00", party_size=50)
    assert state.get_missing_required_slots(NOW) == ["datetime", "party_size"]
    reasons = state.invalid_slots(NOW)
    assert "점심" in reasons["datetime"]
    assert "30명" in reasons["party_size"]


def test_a_time_already_past_is_invalid() -> None:
    state = lunch(location="을지로", datetime="2025-03-05T11:00:00+09:00", party_size=2)
    later = datetime.fromisoformat("2025-03-05T12:00:00+09:00")
    assert state.get_missing_required_slots(later) == ["datetime"]
    assert state.get_missing_required_slots(NOW) == []


def test_unknown_place_is_rejected_for_lunch() -> None:
    state = lunch(location="서면", datetime=NOON_THIRTY, party_size=2)
    assert "서면" in state.invalid_slots(NOW)["location"]


def test_round_trip_through_plain_data() -> None:
    state = lunch(location="을지로", party_size=2)
    state.approvals["booking"] = True
    assert ConversationState.from_dict(state.to_dict()) == state


def test_slot_rows_read_as_people_read_them() -> None:
    slots = {
        "location": "선릉역",
        "datetime": "2026-11-24T12:30:00+09:00",
        "cuisine": "냉면",
        "exclusions": ["매운 음식", "견과류"],
    }
    rows = slot_rows(LUNCH, slots, ["party_size"])
    assert [(r["label"], r["value"], r["missing"]) for r in rows] == [
        ("장소", "선릉역 (역삼)", False),
        ("시간", "11월 24일(화) 오후 12시 30분", False),
        ("인원", "", True),
        ("음식 종류", "냉면 (한식)", False),
        ("못 먹는 것", "매운 음식, 견과류 제외", False),
    ]
    waiting = slot_rows(LUNCH, {"date": "2026-11-25"}, ["datetime"])
    assert waiting[-1] == {
        "slot": "date",
        "label": "날짜",
        "value": "11월 25일(수) (시간 미정)",
        "missing": False,
    }
