"""Writing what the user said into the conversation: a new value overwrites (corrections).

A date and a time may arrive in different turns ("내일" now, "12시" later): the date waits
in `slots["date"]` until a time comes, and a later date or time replaces only its own part of
an existing date-time ("모레로 바꿔줘" keeps the hour).
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from dure.agents.tasks.schema import IntentSchema
from dure.agents.tasks.state import ConversationState
from dure.korean.slots.parser import PARTIAL_DATE, ParseResult
from dure.korean.slots.when import resolve_at
from dure.korean.time import SEOUL


def _merge_datetime(conv: ConversationState, name: str, result: ParseResult, now: datetime) -> bool:
    day, at = result.day, result.at
    current = conv.slots.get(name)
    current_dt = datetime.fromisoformat(current) if current else None
    if at is None:  # a date alone moves the existing time, or waits for one
        if day is None:
            return False
        if current_dt is None:
            conv.slots[PARTIAL_DATE] = day.isoformat()
            return True
        full = datetime.combine(day, current_dt.time().replace(tzinfo=None), tzinfo=SEOUL)
    else:
        if day is None and current_dt is not None:
            day = current_dt.date()
        elif day is None and conv.slots.get(PARTIAL_DATE):
            day = date.fromisoformat(conv.slots[PARTIAL_DATE])
        full = resolve_at(day, at, now)
    conv.slots[name] = full.isoformat()
    conv.slots.pop(PARTIAL_DATE, None)
    return True


def _changed_party(size: Any, result: ParseResult) -> int | None:
    """The party already counted, with the people who join or drop out; None with no count yet
    or no change."""
    if not isinstance(size, int) or not result.party_change:
        return None
    return max(1, size + result.party_change)


def apply_parse(
    conv: ConversationState, result: ParseResult, schema: IntentSchema, now: datetime
) -> list[str]:
    """Write `result` into `conv`; returns the slots that changed. Updates `pending_slots`."""
    changed: list[str] = []
    for spec in schema.slots:
        if spec.type == "datetime":
            if _merge_datetime(conv, spec.name, result, now):
                changed.append(spec.name)
        else:
            value: Any = result.slots.get(spec.name)
            if value is None and spec.type == "party_size":
                value = _changed_party(conv.slots.get(spec.name), result)
            if value is None:
                continue
            if spec.accumulates:
                value = list(dict.fromkeys([*(conv.slots.get(spec.name) or []), *value]))
            if value != conv.slots.get(spec.name):
                conv.slots[spec.name] = value
                changed.append(spec.name)
    for name in result.cleared:
        if conv.slots.pop(name, None) is not None:
            changed.append(name)
    conv.pending_slots = conv.get_missing_required_slots(now)
    return changed
