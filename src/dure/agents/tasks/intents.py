"""The built-in intents, as data (docs/agents/tasks.md): lunch recommendation, meeting-room
booking, and `general` (no slots: the gate passes at once).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from dure.agents.tasks import prompts
from dure.agents.tasks.catalogue import areas, building
from dure.agents.tasks.kakao import uses_kakao
from dure.agents.tasks.schema import IntentSchema, SlotSpec, UnknownIntentError, Validator
from dure.korean.slots.diet import REQUIREMENTS
from dure.korean.slots.keywords import EQUIPMENT, canonical_cuisine
from dure.korean.slots.place import canonical_place
from dure.korean.time import as_seoul
from dure.settings import get_settings

LUNCH_START, LUNCH_END = (10, 30), (15, 0)
MAX_DAYS_AHEAD = 60


def _moment(value: Any) -> datetime:
    return as_seoul(datetime.fromisoformat(str(value)))


def _when(value: Any, now: datetime) -> str | None:
    moment = _moment(value)
    if moment < now - timedelta(minutes=5):
        return "이미 지난 시간이에요."
    if moment > now + timedelta(days=MAX_DAYS_AHEAD):
        return f"{MAX_DAYS_AHEAD}일 이내의 날짜만 정할 수 있어요."
    return None


def _lunch_time(value: Any, now: datetime) -> str | None:
    if reason := _when(value, now):
        return reason
    at = (_moment(value).hour, _moment(value).minute)
    if not LUNCH_START <= at <= LUNCH_END:
        return "점심 추천은 오전 10시 30분부터 오후 3시 사이 시간만 가능해요."
    return None


def _meeting_time(value: Any, now: datetime) -> str | None:
    if reason := _when(value, now):
        return reason
    b = building()
    if not b.opens <= _moment(value).time().replace(tzinfo=None) < b.closes:
        return f"회의실은 {b.open}부터 {b.close}까지만 쓸 수 있어요."
    return None


def _between(low: int, high: int, unit: str, what: str) -> Validator:
    def check(value: Any, now: datetime) -> str | None:
        if not low <= int(value) <= high:
            return f"{what}은 {low}{unit}부터 {high}{unit}까지만 가능해요."
        return None

    return check


def _party(label: str, question: str, most: int) -> SlotSpec:
    """A head count from 1 to `most`."""
    return SlotSpec(
        "party_size",
        "party_size",
        label,
        question,
        validator=_between(1, most, "명", label),
        normaliser=int,
    )


def _lunch_place(value: Any, now: datetime) -> str | None:
    # Kakao finds places anywhere; the sample catalogue only in its own areas.
    if canonical_place(value) in areas() or uses_kakao(get_settings()):
        return None
    return f"'{value}' 근처 식당 정보는 아직 없어요. 가능한 지역: {', '.join(areas())}."


def _budget(value: Any, now: datetime) -> str | None:
    low, high = value.get("min"), value.get("max")
    if high is not None and high < 5000:
        return "인당 예산은 5,000원 이상이어야 추천할 수 있어요."
    if low is not None and high is not None and low > high:
        return "예산의 최소 금액이 최대 금액보다 커요."
    return None


def _equipment(value: Any) -> list[str]:
    return [name for name in EQUIPMENT if name in set(value)]


LUNCH = IntentSchema(
    name="lunch_recommendation",
    title="점심 메뉴 추천",
    description="장소·시간·인원에 맞춰 점심 메뉴와 식당을 추천합니다.",
    keywords=(
        "점심",
        "런치",
        "맛집",
        "식당",
        "밥집",
        "밥 먹",
        "먹을",
        "먹으러",
        "먹고 싶",
        "메뉴 추천",
        "뭐 먹",
        "점메추",
        "식사",
    ),
    slots=(
        SlotSpec(
            "location",
            "place",
            "장소",
            "어느 동네(역) 근처에서 드실 건가요?",
            validator=_lunch_place,
            canonical=canonical_place,
        ),
        SlotSpec("datetime", "datetime", "시간", "시간은 언제로 할까요?", validator=_lunch_time),
        _party("인원", "몇 분이 함께 드시나요?", 30),
        SlotSpec(
            "cuisine",
            "cuisine",
            "음식 종류",
            "어떤 음식이 좋으세요?",
            required=False,
            canonical=lambda v: canonical_cuisine(v) or v,
        ),
        SlotSpec(
            "budget_per_person",
            "budget",
            "인당 예산",
            "인당 예산은 어느 정도로 생각하세요?",
            required=False,
            validator=_budget,
            require_when=("예산", "가격대"),
        ),
        SlotSpec(
            "exclusions",
            "exclusion",
            "못 먹는 것",
            "빼야 할 음식(매운 음식, 알레르기 등)이 있나요?",
            required=False,
            accumulates=True,
        ),
        SlotSpec(
            "requirements",
            "requirement",
            "필요한 조건",
            "식당에 꼭 필요한 조건(주차, 룸, 단체석)이 있나요?",
            required=False,
            accumulates=True,
            # The words that ask for a condition make it required: the places found must be
            # checked against it, or the answer says it could not be.
            require_when=tuple(w for words in REQUIREMENTS.values() for w in words),
        ),
    ),
    workers=("menu_recommendation_agent", "restaurant_search_agent"),
)

MEETING_ROOM = IntentSchema(
    name="meeting_room_booking",
    title="회의실 예약",
    description="시간·인원·필요 장비에 맞는 회의실을 찾아 예약합니다.",
    keywords=("회의실", "미팅룸", "회의 공간", "회의 장소", "미팅 장소", "회의 잡", "미팅 잡"),
    slots=(
        SlotSpec(
            "datetime", "datetime", "시작 시간", "회의는 언제 시작하나요?", validator=_meeting_time
        ),
        _party("참석 인원", "몇 명이 참석하나요?", 20),
        SlotSpec(
            "duration_minutes",
            "duration",
            "사용 시간",
            "회의실은 얼마나 쓰실 건가요?",
            required=False,
            validator=_between(10, 480, "분", "사용 시간"),
            normaliser=int,
            require_when=("얼마나 쓸",),
            default=60,
        ),
        SlotSpec(
            "equipment",
            "equipment",
            "필요 장비",
            "필요한 장비(화상회의, 프로젝터, 화이트보드)가 있나요?",
            required=False,
            normaliser=_equipment,
            require_when=("장비",),
        ),
    ),
    workers=("meeting_room_agent",),
    approval="booking",
)

MEETING_ROOM_CANCEL = IntentSchema(
    name="meeting_room_cancellation",
    title="회의실 예약 취소",
    description="내가 만든 회의실 예약을 시작 시간으로 찾아 취소합니다.",
    keywords=("예약 취소", "취소해", "취소할", "취소하고", "취소 부탁"),
    slots=(
        SlotSpec(
            "datetime",
            "datetime",
            "예약 시작 시간",
            "취소할 예약은 몇 시에 시작하나요?",
            validator=_when,
        ),
    ),
    workers=("meeting_room_cancel_agent",),
    approval="cancel_booking",
    confirm_question=prompts.CANCEL_BOOKING_QUESTION,
    declined=prompts.CANCEL_BOOKING_DECLINED,
    carry_from=(MEETING_ROOM.name,),
    by_slots=False,
)

# The third task, to show what a new one takes: this schema and one worker (workers/taxi.py).
TAXI = IntentSchema(
    name="taxi_call",
    title="택시 호출",
    description="출발 장소·시간·인원을 받아 택시 호출을 준비합니다.",
    keywords=("택시", "카카오T", "콜택시"),
    slots=(
        SlotSpec("pickup", "place", "출발 장소", "어디에서 타실 건가요?"),
        SlotSpec("datetime", "datetime", "탑승 시간", "몇 시에 타실 건가요?", validator=_when),
        _party("인원", "몇 분이 타시나요?", 20),
    ),
    workers=("taxi_agent",),
    by_slots=False,  # "을지로에서 2명" is lunch; a taxi is asked for by name
    approval="taxi",
    confirm_question=prompts.TAXI_QUESTION,
    declined=prompts.TAXI_DECLINED,
)

GENERAL = IntentSchema(
    name="general",
    title="일반 대화",
    description="정해진 작업이 아닌 대화입니다. 필요한 정보가 없어 바로 답합니다.",
)

INTENTS: dict[str, IntentSchema] = {
    i.name: i for i in (LUNCH, MEETING_ROOM, MEETING_ROOM_CANCEL, TAXI, GENERAL)
}


def get_intent(name: str) -> IntentSchema:
    """The intent called `name`, or `UnknownIntentError`."""
    if name not in INTENTS:
        raise UnknownIntentError(name, list(INTENTS))
    return INTENTS[name]


def task_intents() -> list[IntentSchema]:
    """The intents that do a task (everything but `general`)."""
    return [i for i in INTENTS.values() if i.name != GENERAL.name]
