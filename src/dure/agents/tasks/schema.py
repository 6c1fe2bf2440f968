"""The declarative intent schema: which slots an intent needs, how to check and ask for them.

An intent is data — its slots (name, type, required or optional, validator, normaliser,
question hint) and the worker agents that run once they are filled — so adding one is a new
`IntentSchema` plus its workers, never new control flow.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, Literal

from dure.agents.tasks import prompts
from dure.errors import DureError
from dure.korean.slots.parser import PARTIAL_DATE
from dure.korean.time import WEEKDAYS

SlotType = Literal[
    "place",
    "datetime",
    "party_size",
    "cuisine",
    "budget",
    "duration",
    "equipment",
    "exclusion",
    "requirement",
]
#: A validator returns None for a good value, else the reason in Korean (said to the user).
Validator = Callable[[Any, datetime], str | None]
Normaliser = Callable[[Any], Any]

#: Words by which a question asks for a slot of each type (used to check the LLM's question).
ASK_TERMS: dict[str, tuple[str, ...]] = {
    "place": ("어디", "장소", "위치", "지역", "동네"),
    "datetime": ("언제", "몇 시", "몇시", "시간", "날짜", "요일", "며칠"),
    "party_size": ("몇 명", "몇명", "몇 분", "몇분", "인원", "일행"),
    "cuisine": ("어떤 음식", "음식 종류", "종류", "메뉴"),
    "budget": ("예산", "가격", "얼마"),
    "duration": ("얼마나", "몇 시간", "사용 시간", "동안"),
    "equipment": ("장비", "화상", "프로젝터", "화이트보드"),
    "exclusion": ("못 드시", "빼", "알레르기", "제외"),
    "requirement": ("조건", "주차", "단체석"),
}


def is_filled(value: Any) -> bool:
    """A slot holds a value (0 is a value — a validator may still reject it)."""
    return value is not None and value != "" and value != [] and value != {}


def _won(amount: int) -> str:
    return f"{amount:,}원"


def _clock(moment: datetime) -> str:
    half = "오전" if moment.hour < 12 else "오후"
    hour = moment.hour if moment.hour <= 12 else moment.hour - 12
    return f"{half} {hour}시" + (f" {moment.minute}분" if moment.minute else "")


def display_date(day: date) -> str:
    """`3월 7일(금)`."""
    return f"{day.month}월 {day.day}일({WEEKDAYS[day.weekday()]})"


def display_value(slot_type: str, value: Any) -> str:
    """A slot value as a Korean phrase for questions and answers."""
    if slot_type == "datetime":
        moment = datetime.fromisoformat(value)
        return f"{display_date(moment.date())} {_clock(moment)}"
    if slot_type == "party_size":
        return f"{value}명"
    if slot_type == "budget":
        low, high = value.get("min"), value.get("max")
        if low is not None and high is not None:
            return f"인당 {_won(low)}~{_won(high)}"
        return f"인당 {_won(high)} 이하" if high is not None else f"인당 {_won(low)} 이상"
    if slot_type == "duration":
        hours, minutes = divmod(int(value), 60)
        return " ".join(
            p for p in (f"{hours}시간" if hours else "", f"{minutes}분" if minutes else "") if p
        )
    if slot_type == "exclusion":  # never read as a wish: "매운 음식 제외"
        return f"{', '.join(value)} 제외"
    if slot_type == "requirement":
        return f"{', '.join(value)} 조건"
    if slot_type == "equipment":
        return ", ".join(value)
    return str(value)


@dataclass(frozen=True)
class SlotSpec:
    """One slot of an intent."""

    name: str
    type: SlotType
    label: str
    question: str
    required: bool = True
    validator: Validator | None = None
    normaliser: Normaliser | None = None
    require_when: tuple[str, ...] = ()
    default: Any = None
    #: The form search and workers use, when it differs from what the user said (a place's
    #: catalogue area, a food's category); the slot itself keeps the user's words.
    canonical: Normaliser | None = None
    #: A list slot whose values add up across turns ("매운 거 빼고" … "견과류 알레르기도").
    accumulates: bool = False

    def normalise(self, value: Any) -> Any:
        """A parsed value in the slot's type (e.g. a count as `int`)."""
        return self.normaliser(value) if self.normaliser else value

    def canonical_value(self, value: Any) -> Any:
        """The canonical form of a slot value (the value itself when the slot has none)."""
        return self.canonical(value) if self.canonical else value

    def validate(self, value: Any, now: datetime) -> str | None:
        """None when `value` is acceptable, else the reason (Korean)."""
        return self.validator(value, now) if self.validator else None

    def display(self, value: Any) -> str:
        """The value as a Korean phrase."""
        return display_value(self.type, value)

    @property
    def ask_terms(self) -> tuple[str, ...]:
        """Words a question uses when it asks for this slot."""
        return ASK_TERMS[self.type]


@dataclass(frozen=True)
class IntentSchema:
    """A task the agent can do: its slots, its worker agents, and an optional approval."""

    name: str
    title: str
    slots: tuple[SlotSpec, ...] = ()
    workers: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()
    approval: str | None = None
    description: str = ""
    #: The confirmation question (`{summary}`) and the answer when the user declines it.
    confirm_question: str = prompts.CONFIRM_QUESTION
    declined: str = prompts.DECLINED
    #: Intents whose established slots (same names) a new request of this one starts from
    #: ("취소할게" after a booking: the booking's time).
    carry_from: tuple[str, ...] = ()
    #: Whether the slots a message states may pick this intent without its keywords.
    by_slots: bool = True

    def spec(self, name: str) -> SlotSpec | None:
        """The slot called `name`."""
        return next((s for s in self.slots if s.name == name), None)

    def required_for(self, request: str = "") -> list[str]:
        """Required slots for a request: the fixed ones plus any the request's words call for."""
        return [
            s.name
            for s in self.slots
            if s.required or any(word in request for word in s.require_when)
        ]

    def defaults(self) -> dict[str, Any]:
        """Values used for slots the user leaves empty."""
        return {s.name: s.default for s in self.slots if s.default is not None}


class UnknownIntentError(DureError, LookupError):
    """An intent name nobody registered."""

    def __init__(self, name: str, known: list[str]) -> None:
        super().__init__(f"알 수 없는 작업(intent)입니다: {name!r} (사용 가능: {', '.join(known)})")


def slot_rows(
    schema: IntentSchema, slots: dict[str, Any], missing: list[str]
) -> list[dict[str, Any]]:
    """The slots as people read them, in the schema's order, for the web UI and the CLI:
    `slot`, `label` ("인원"), `value` in Korean ("3월 5일(수) 오후 12시 30분", "2명"; the
    canonical form beside the user's words: "냉면 (한식)"), `missing`. A date still waiting
    for its time is shown too."""
    rows: list[dict[str, Any]] = []
    for spec in schema.slots:
        value = slots.get(spec.name)
        if not is_filled(value) and spec.name not in missing:
            continue
        shown = spec.display(value) if is_filled(value) else ""
        canonical = spec.canonical_value(value) if is_filled(value) else value
        if canonical != value:
            shown += f" ({canonical})"
        rows.append(
            {
                "slot": spec.name,
                "label": spec.label,
                "value": shown,
                "missing": spec.name in missing,
            }
        )
    if day := slots.get(PARTIAL_DATE):
        shown = f"{display_date(date.fromisoformat(day))} (시간 미정)"
        rows.append({"slot": PARTIAL_DATE, "label": "날짜", "value": shown, "missing": False})
    return rows
