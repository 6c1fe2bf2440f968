"""Exclusions and requirements read by rules: a food next to a cue is excluded, a food alone is
a wish; diet words stand for their exclusions; a place's requirements are named words."""

from __future__ import annotations

from datetime import datetime

import pytest

from dure.agents.tasks.intents import LUNCH
from dure.korean.slots.parser import parse_slots
from dure.korean.time import SEOUL

NOW = datetime(2025, 3, 5, 10, tzinfo=SEOUL)


@pytest.mark.parametrize(
    ("text", "exclusions"),
    [
        ("매운 거 빼고 을지로 2명 점심", ["매운 음식"]),
        ("견과류 알레르기 있어요", ["견과류"]),
        ("고기 말고 다른 거", ["고기"]),
        ("안 매운 걸로 추천해줘", ["매운 음식"]),
        ("맵지 않은 메뉴로", ["매운 음식"]),
        ("새우 알레르기랑 매운 음식은 빼 주세요", ["갑각류", "매운 음식"]),
        ("해산물 못 먹어요", ["해산물"]),
        ("밀가루 안 들어간 거", ["밀"]),
        ("저 비건이에요", ["고기", "해산물", "우유", "난류"]),
        ("유제품 빼고 중식 말고", ["우유", "중식"]),
        ("냉면 말고", ["냉면"]),
        ("땅콩이랑 새우 알레르기", ["견과류", "갑각류"]),
        ("견과류, 우유 빼고", ["견과류", "우유"]),
        ("알레르기: 우유", ["우유"]),
        ("글루텐 프리로", ["밀"]),
        ("순한 맛으로", ["매운 음식"]),
        ("매운 건 별로예요", ["매운 음식"]),
        ("돼지국밥 먹고 싶어", None),
        ("매운 거 좋아요", None),
    ],
)
def test_exclusions(text: str, exclusions: list[str] | None) -> None:
    assert parse_slots(text, LUNCH, NOW).slots.get("exclusions") == exclusions


def test_an_excluded_food_is_not_the_food_asked_for() -> None:
    result = parse_slots("해산물 못 먹어요", LUNCH, NOW)
    assert "cuisine" not in result.slots and result.cleared == ["cuisine"]
    assert parse_slots("고기 말고 국수", LUNCH, NOW).slots["cuisine"] == "국수"


@pytest.mark.parametrize(
    ("text", "requirements"),
    [
        ("을지로 주차 되는 곳으로", ["주차"]),
        ("룸 있는 데로, 단체석이면 더 좋고", ["룸", "단체석"]),
        ("예약 가능한 곳", ["예약 가능"]),
        ("을지로 2명", None),
    ],
)
def test_requirements(text: str, requirements: list[str] | None) -> None:
    assert parse_slots(text, LUNCH, NOW).slots.get("requirements") == requirements


def test_a_requirement_makes_its_slot_required() -> None:
    assert "requirements" in LUNCH.required_for("주차 되는 곳으로 을지로 2명")
    assert "requirements" not in LUNCH.required_for("을지로 2명")
