"""The rule-based slot parser: one utterance → the slot values it states (no LLM).

`extract` runs every extractor in a fixed order on a working copy of the text: numbers that
are never slots are blanked first, then dates and times, durations, money, keywords, exclusions
and requirements (read, not claimed), people and places, each claiming what it read. `parse_slots` keeps the slots a given intent declares.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, time
from typing import Any, Protocol

from dure.korean.slots.core import Utterance, mask_distractors
from dure.korean.slots.diet import extract_exclusions, extract_requirements
from dure.korean.slots.keywords import EQUIPMENT, extract_keywords
from dure.korean.slots.money import extract_budget
from dure.korean.slots.people import extract_party
from dure.korean.slots.place import extract_places
from dure.korean.slots.when import (
    extract_dates,
    extract_durations,
    extract_relative_times,
    extract_times,
    resolve_at,
)
from dure.korean.time import as_seoul

#: Where a date without a time is kept until the time arrives (for the `datetime` slot).
PARTIAL_DATE = "date"


def extract(text: str, now: datetime, expect: Iterable[str] = ()) -> Utterance:
    """Every mention in `text`; `expect` (slot types) lets a bare reply fill what was asked."""
    expected = set(expect)
    u = Utterance(text)
    extract_relative_times(u, now)  # before the mask, which blanks other "N분 뒤" offsets
    mask_distractors(u)
    extract_times(u)
    extract_dates(u, now)
    extract_durations(u)
    extract_budget(u)
    extract_keywords(u)
    extract_exclusions(u)
    extract_requirements(u)
    extract_party(u, expected="party_size" in expected)
    extract_places(u, expected="place" in expected)
    return u


class Slot(Protocol):
    """What the parser needs of a slot (the task agent's `SlotSpec` is one)."""

    @property
    def name(self) -> str: ...

    @property
    def type(self) -> str: ...

    def normalise(self, value: Any) -> Any: ...


class Intent(Protocol):
    """What the parser needs of an intent: its slots (the task agent's `IntentSchema`)."""

    @property
    def slots(self) -> Sequence[Slot]: ...


@dataclass
class ParseResult:
    """What one utterance says about an intent's slots.

    `slots` is the stateless reading (a time alone is its next occurrence); `day` and `at` are
    the raw date and time, so a conversation can combine "내일" now with "12시" later.
    `cleared` are slots the user negated without giving another value ("한식 말고").
    """

    slots: dict[str, Any] = field(default_factory=dict)
    day: date | None = None
    at: time | None = None
    cleared: list[str] = field(default_factory=list)
    #: People joining (+) or dropping out (−) of the party already counted ("한 명 더 온대").
    party_change: int = 0


def _budget(u: Utterance, party: int | None) -> dict[str, int] | None:
    picked = u.pick("budget")
    if picked is not None:
        return picked.value
    total = u.pick("budget_total")
    if total is None or not party:
        return None
    return {k: v // party for k, v in total.value.items()}


def _value(u: Utterance, slot_type: str, party: int | None) -> Any:
    if slot_type == "budget":
        return _budget(u, party)
    if slot_type == "equipment":
        kept = {m.value for m in u.of("equipment") if not m.negated}
        return [name for name in EQUIPMENT if name in kept] or None
    if slot_type in ("exclusion", "requirement"):  # every one said, in the order said
        return list(dict.fromkeys(m.value for m in u.of(slot_type))) or None
    picked = u.pick(slot_type)
    return picked.value if picked else None


def parse_slots(
    text: str, intent: Intent, now: datetime, expect: Iterable[str] = ()
) -> ParseResult:
    """The slots of `intent` stated in `text`, normalised, against `now` (Asia/Seoul)."""
    now = as_seoul(now)
    types = {spec.name: spec.type for spec in intent.slots}
    u = extract(text, now, (types.get(name, name) for name in expect))
    party_pick = u.pick("party_size")
    party = party_pick.value if party_pick else None
    result = ParseResult(party_change=sum(m.value for m in u.of("party_change")))
    for spec in intent.slots:
        if spec.type == "datetime":
            day, at = u.pick("date"), u.pick("time")
            result.day, result.at = (day.value if day else None), (at.value if at else None)
            if result.at is not None:
                result.slots[spec.name] = resolve_at(result.day, result.at, now).isoformat()
            elif result.day is not None:
                result.slots[PARTIAL_DATE] = result.day.isoformat()
            elif u.only_negated("date") or u.only_negated("time"):
                result.cleared.append(spec.name)
            continue
        value = _value(u, spec.type, party)
        if value is not None:
            result.slots[spec.name] = spec.normalise(value)
        elif u.only_negated(spec.type):
            result.cleared.append(spec.name)
    return result
