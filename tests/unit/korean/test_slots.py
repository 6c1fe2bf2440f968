"""The rule-based Korean slot parser (no LLM), read against the task agent's intents."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from dure.agents.tasks.intents import LUNCH, MEETING_ROOM, get_intent
from dure.korean.slots.parser import parse_slots

WED = datetime.fromisoformat("2025-03-05T10:00:00+09:00")
DEV_SET = Path(__file__).parents[2] / "data" / "slots_dev.jsonl"


def lunch(text: str, now: datetime = WED, expect: tuple[str, ...] = ()) -> dict[str, Any]:
    return parse_slots(text, LUNCH, now, expect).slots


@pytest.mark.parametrize(
    ("text", "place", "area"),
    [
        ("을지로에서 2명", "을지로", "을지로"),
        ("강남역 근처", "강남역", "강남"),
        ("을지로입구역 앞", "을지로입구역", "을지로"),
        ("종로 3가에서", "종로 3가", "종로"),
        ("서면에서", "서면", "서면"),
        ("대구 동성로 쪽에서", "대구 동성로", "대구 동성로"),
        # a landmark keeps the place before it, and the area is that place's
        ("강남 교보타워 앞에서", "강남 교보타워", "강남"),
        ("여의도 파크원 근처", "여의도 파크원", "여의도"),
        ("판교역 현대백화점 쪽으로", "판교역 현대백화점", "판교"),
        ("12시에 강남 말고 역삼에서", "역삼", "역삼"),
        ("사당역 파스텔시티 앞", "사당역 파스텔시티", "사당역 파스텔시티"),
        ("창원 상남동 쪽", "창원 상남동", "창원 상남동"),
        ("김해시 내외동에서", "김해시 내외동", "김해시 내외동"),
        # a city, then a place there with no 에서/근처 after it
        ("광주 충장로 12시 3명", "광주 충장로", "광주 충장로"),
        ("여수 낭만포차거리 1시에 둘이", "여수 낭만포차거리", "여수 낭만포차거리"),
        ("제주 애월 카페거리 1시", "제주 애월", "제주 애월"),
        # a name written on to a known place is the place said; the known place is its area
        ("코엑스몰에서 파스타", "코엑스몰", "삼성"),
        ("혼자 여의도 IFC몰에서 샐러드", "여의도 IFC몰", "여의도"),
        ("IFC몰 근처 샐러드", "IFC몰", "여의도"),
        ("을지로3가에서 냉면", "을지로3가", "을지로"),
        # …but not 근처/쪽, a food or a count written on to it
        ("강남역근처 쌀국수", "강남역", "강남"),
        ("광화문쪽에서 둘이", "광화문", "광화문"),
        ("성수동브런치 2인", "성수동", "성수"),
        ("강남2명 12시", "강남", "강남"),
        ("을지로 노가리 골목 쪽 한 시", "을지로", "을지로"),  # 골목 alone names no place
        # a station with a particle after it, or a long name
        ("사당역이 젤 편함", "사당역", "사당"),
        ("신촌 말고 이대역으로", "이대역", "이대"),
        ("동대문역사문화공원역 쪽 닭한마리", "동대문역사문화공원역", "동대문역사문화공원"),
        # a proper noun before a place found by its shape is its name
        ("해운대 해수욕장 쪽에서", "해운대 해수욕장", "해운대 해수욕장"),
        ("혼자 먹을 곳 광교 중앙역", "광교 중앙역", "광교 중앙"),
    ],
)
def test_place_as_said_and_its_area(text: str, place: str, area: str) -> None:
    said = lunch(text)["location"]
    assert said == place
    assert LUNCH.spec("location").canonical_value(said) == area


def test_words_that_are_not_places() -> None:
    assert "location" not in lunch("회사 근처에서 2명")
    assert "location" not in lunch("부산 가족 4명 12시")  # people after a city, not a place
    assert lunch("구미 당기는 거 12시 강남역")["location"] == "강남역"  # 구미 is no city here


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("오늘 점심", "2025-03-05"),
        ("내일 점심", "2025-03-06"),
        ("모레 점심", "2025-03-07"),
        ("이번 주 금요일 점심", "2025-03-07"),
        ("다음주 화요일 점심", "2025-03-11"),
        ("금요일 점심", "2025-03-07"),
        # days of a month: named, or bare before a meal or a time (a day already past is next month's)
        ("다음 달 3일 점심", "2025-04-03"),
        ("이번 달 20일 점심", "2025-03-20"),
        ("20일 점심", "2025-03-20"),
        ("3일 점심", "2025-04-03"),
        # days and weeks from today
        ("3일 뒤 점심", "2025-03-08"),
        ("이틀 후 점심", "2025-03-07"),
        ("2주 뒤 점심", "2025-03-19"),
        ("열흘 뒤 점심", "2025-03-15"),
        ("한 달 뒤 점심", "2025-04-05"),
        ("오늘부터 1년 후 점심", "2026-03-05"),
        ("2주 후 금요일 점심", "2025-03-21"),  # that week's Friday (weeks start on Monday)
    ],
)
def test_dates_against_now(text: str, day: str) -> None:
    assert lunch(text) == {"date": day}


@pytest.mark.parametrize("text", ["3일 동안 점심", "주 3일 점심", "3일째 점심", "담달 31일 점심"])
def test_a_count_of_days_is_no_date(text: str) -> None:
    assert "date" not in lunch(text)


def test_a_day_of_the_month_with_its_time() -> None:
    assert lunch("다음 달 3일 1시 반")["datetime"] == "2025-04-03T13:30:00+09:00"
    assert lunch("5일 12시")["datetime"] == "2025-03-05T12:00:00+09:00"  # today, still ahead
    assert lunch("4일 12시")["datetime"] == "2025-04-04T12:00:00+09:00"


@pytest.mark.parametrize(
    ("text", "clock"),
    [
        ("12시 반", "12:30"),
        ("12시 30분", "12:30"),
        ("오후 1시", "13:00"),
        ("정오", "12:00"),
        ("1시", "13:00"),
        ("오전 11시", "11:00"),
        ("12:45", "12:45"),
    ],
)
def test_times(text: str, clock: str) -> None:
    assert lunch(text)["datetime"] == f"2025-03-05T{clock}:00+09:00"


@pytest.mark.parametrize(
    ("text", "said", "area"),
    [
        ("lunch near Gangnam station", "Gangnam station", "강남"),
        ("hongdae for 3", "hongdae", "홍대"),
        ("Yeouido IFC 근처", "Yeouido IFC", "여의도"),
    ],
)
def test_places_in_english(text: str, said: str, area: str) -> None:
    assert lunch(text)["location"] == said
    assert LUNCH.spec("location").canonical_value(said) == area


def test_a_place_in_english_is_a_whole_word() -> None:
    assert "location" not in lunch("we coexist peacefully")


def test_raw_fish_is_not_a_meeting_or_a_count() -> None:
    for text in ("회의 끝나고 점심", "회식 장소", "2회 이상 간 곳", "회사 근처"):
        assert "cuisine" not in lunch(text)
    assert "cuisine" not in lunch("phone 충전되는 곳")  # an English word only as a whole word


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("lunch for 2 near 강남", 2),
        ("table for four", 4),
        ("sushi for two.", 2),
        ("two people 판교", 2),
        ("3 of us", 3),
        ("for 2 hours", None),  # a duration
        ("tomorrow for 12:30", None),  # a time
        ("dinner for 2 pm", None),
    ],
)
def test_english_head_counts(text: str, size: int | None) -> None:
    assert lunch(text).get("party_size") == size


@pytest.mark.parametrize(
    ("text", "slots"),
    [
        ("tomorrow 12:30pm 강남역 party of 4", ("2025-03-06T12:30", 4)),
        ("today 1 pm 판교 3 people", ("2025-03-05T13:00", 3)),
        ("lunch at noon tmrw 성수 2 pax", ("2025-03-06T12:00", 2)),
        ("내일 12시 just me", ("2025-03-06T12:00", 1)),
    ],
)
def test_english_dates_times_and_people(text: str, slots: tuple[str, int]) -> None:
    said = lunch(text)
    assert (said["datetime"][:16], said["party_size"]) == slots


def test_a_decimal_is_no_english_time() -> None:
    assert "datetime" not in lunch("1.5 pm 정도")


def test_lunch_alone_is_no_time() -> None:
    assert lunch("점심에 을지로") == {"location": "을지로"}


def test_a_time_already_past_today_means_tomorrow() -> None:
    sunday_evening = datetime.fromisoformat("2025-03-09T20:00:00+09:00")
    assert lunch("12시", sunday_evening)["datetime"] == "2025-03-10T12:00:00+09:00"


def test_this_weeks_day_already_past_rolls_to_next_week() -> None:
    sunday = datetime.fromisoformat("2025-03-09T20:00:00+09:00")
    assert lunch("이번 주 금요일 점심", sunday) == {"date": "2025-03-14"}


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("2명", 2),
        ("두 명", 2),
        ("둘이서", 2),
        ("혼자", 1),
        ("나 포함 4명", 4),
        ("나 빼고 3명", 4),
        ("세 분", 3),
        ("2~3명", 3),
        ("4인 테이블", 4),
        ("친구 셋이랑 나", 4),
        ("인원은 넷으로", 4),  # the head count named as such
        ("사람 여섯으로 바꿔줘", 6),
        ("2인 세트 말고 우리 셋이", 3),  # "N인 세트" is a dish, not the party
    ],
)
def test_party_size(text: str, size: int) -> None:
    assert lunch(text)["party_size"] == size


@pytest.mark.parametrize(
    ("text", "budget"),
    [
        ("1만원대", {"min": 10000, "max": 19999}),
        ("인당 2만 5천 원", {"max": 25000}),
        ("만원 이하", {"max": 10000}),
        ("3만원 이상", {"min": 30000}),
        ("1~2만원 사이", {"min": 10000, "max": 20000}),
        ("총 8만원으로 4명", {"max": 20000}),
        ("under 15k per person", {"max": 15000}),
        ("budget 20k", {"max": 20000}),
        ("15,000 won each", {"max": 15000}),
        ("at least 10k", {"min": 10000}),
        ("₩30000 total for 2", {"max": 15000}),
        ("budget 2만", {"max": 20000}),
        # strict bounds, and two bounds said as one range
        ("인당 만원 미만", {"max": 9999}),
        ("3만원 초과", {"min": 30001}),
        ("1인당 2만 이상 3만 이하", {"min": 20000, "max": 30000}),
        ("2만원 이상, 3만원 이하", {"min": 20000, "max": 30000}),
        # an amount after one taken back is money too
        ("인당 3만 말고 4만 안팎으로", {"max": 40000}),
    ],
)
def test_budget_per_person(text: str, budget: dict[str, int]) -> None:
    assert lunch(text)["budget_per_person"] == budget


def test_an_english_number_is_money_only_with_its_unit_or_a_word_of_money() -> None:
    for text in ("12k steps 걷고 점심", "12,000 people", "table 15"):
        assert "budget_per_person" not in lunch(text)
    assert "party_size" not in lunch("12,000 people")  # not 0 people: the digits after a comma


def test_food_as_said_and_its_category() -> None:
    spec = LUNCH.spec("cuisine")
    for text, said, category in (
        ("초밥 먹고 싶어", "초밥", "일식"),
        ("짬뽕", "짬뽕", "중식"),
        ("국밥집 가자", "국밥", "한식"),
        ("중식당으로", "중식", "중식"),
        ("파스타먹을래", "파스타", "양식"),
        ("돼지국밥집 가자", "돼지국밥", "한식"),
        ("마라샹궈 먹자", "마라샹궈", "중식"),
        ("물냉면 둘", "물냉면", "한식"),
        ("회 먹고 싶어", "회", "일식"),  # 회 by Kiwi: a noun of its own
        ("광어회 먹자", "광어회", "일식"),
        ("횟집 가자", "회", "일식"),  # the 사이시옷 before 집 undone
        ("고깃집 가자", "고기", "고기"),
        ("korean bbq 먹자", "korean bbq", "고기"),
        # never less than the vocabulary word, however Kiwi splits it
        ("앞에 포케 12시", "포케", "샐러드"),
        ("종로 닭한마리", "닭한마리", "한식"),
        ("sushi please", "sushi", "일식"),
    ):
        assert lunch(text)["cuisine"] == said
        assert spec.canonical_value(said) == category


@pytest.mark.parametrize(
    ("text", "slot", "value"),
    [
        ("아 3명 말고 4명", "party_size", 4),
        ("2명에서 3명으로 바꿀게", "party_size", 3),
        ("4명이 아니라 5명이에요", "party_size", 5),
        ("을지로 말고 종로로", "location", "종로"),
        ("한식 말고 일식", "cuisine", "일식"),
        ("12시 말고 1시", "datetime", "2025-03-05T13:00:00+09:00"),
    ],
)
def test_corrections_keep_the_last_value(text: str, slot: str, value: Any) -> None:
    assert lunch(text)[slot] == value


def test_a_negation_alone_clears_the_slot() -> None:
    result = parse_slots("한식 말고", LUNCH, WED)
    assert result.slots == {"exclusions": ["한식"]}  # not wished for, and kept out of the menu
    assert result.cleared == ["cuisine"]


@pytest.mark.parametrize(
    "text",
    [
        "2호선 타고 을지로",
        "3시간짜리 회의 끝나고 을지로",
        "1번 출구 앞 을지로",
        "도보 5분 거리 을지로",
        "2인분 주문되는 을지로",
        "3층 식당 을지로",
        "4인 세트 되는 을지로",
        "2시간 뒤에 회의라 빨리 을지로",  # the meeting's time, not the meal's
    ],
)
def test_numbers_that_are_not_slots(text: str) -> None:
    assert lunch(text) == {"location": "을지로"}


def test_a_bare_reply_fills_the_slot_that_was_asked() -> None:
    assert lunch("3", expect=("party_size",)) == {"party_size": 3}
    assert lunch("3") == {}
    assert lunch("망원동이요", expect=("location",)) == {"location": "망원동"}


def test_only_the_intents_slots_are_returned() -> None:
    text = "내일 2시부터 4시까지 회의실 6명 을지로 한식"
    assert parse_slots(text, MEETING_ROOM, WED).slots == {
        "datetime": "2025-03-06T14:00:00+09:00",
        "party_size": 6,
        "duration_minutes": 120,
    }


def test_equipment_is_a_list_in_a_fixed_order() -> None:
    slots = parse_slots("프로젝터랑 줌 되는 방", MEETING_ROOM, WED).slots
    assert slots == {"equipment": ["화상회의", "프로젝터"]}


def test_dev_set_meets_the_targets() -> None:
    rows = [json.loads(line) for line in DEV_SET.read_text(encoding="utf-8").splitlines()]
    assert len(rows) >= 120
    exact = tp = fp = fn = 0
    for row in rows:
        intent = get_intent(row["intent"])
        said = parse_slots(row["utterance"], intent, datetime.fromisoformat(row["now"])).slots
        # This older set is labelled with canonical values (areas, food categories).
        got = {k: s.canonical_value(said[k]) for s in intent.slots if (k := s.name) in said}
        gold = row["slots"]
        exact += got == gold
        tp += sum(1 for k in gold if got.get(k) == gold[k])
        fp += sum(1 for k in got if gold.get(k) != got[k])
        fn += sum(1 for k in gold if got.get(k) != gold[k])
    f1 = 2 * tp / (2 * tp + fp + fn)
    assert f1 >= 0.95
    assert exact / len(rows) >= 0.85


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("20분 뒤에 종로에서", "2025-03-05T10:20:00+09:00"),
        ("두 시간 후 을지로", "2025-03-05T12:00:00+09:00"),
        ("한 시간 반 있다가 보자", "2025-03-05T11:30:00+09:00"),
    ],
)
def test_a_time_counted_from_now(text: str, expected: str) -> None:
    assert lunch(text)["datetime"] == expected


def test_a_length_is_not_a_time_from_now() -> None:
    assert "datetime" not in lunch("2시간짜리 회의 끝나고 먹자")


@pytest.mark.parametrize(
    ("text", "size"),
    [("나 포함 다섯", 5), ("나 포함 4명", 4), ("동료 3명하고 저 을지로", 4), ("나랑 친구 둘", 3)],
)
def test_the_speaker_counts_once(text: str, size: int) -> None:
    assert lunch(text)["party_size"] == size
