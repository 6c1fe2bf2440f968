"""Korean time basics used everywhere: Seoul's zone, weekday names, the present in Seoul."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

#: Asia/Seoul has had no daylight saving since 1988: a fixed +09:00 is exact (and needs no
#: tz database, which slim containers lack).
SEOUL = timezone(timedelta(hours=9), "Asia/Seoul")
#: Weekday initials, Monday first (`WEEKDAYS[d.weekday()]`).
WEEKDAYS = "월화수목금토일"


def as_seoul(moment: datetime) -> datetime:
    """`moment` in Asia/Seoul (naive values are taken as Seoul time)."""
    return moment.replace(tzinfo=SEOUL) if moment.tzinfo is None else moment.astimezone(SEOUL)


def seoul_now() -> datetime:
    """The present in Asia/Seoul."""
    return datetime.now(SEOUL)


def seoul_now_text(now: datetime | None = None) -> str:
    """The time in Seoul as prompts show it, e.g. `2025-03-01 (토) 14:05 KST`."""
    t = as_seoul(now or seoul_now())
    return f"{t:%Y-%m-%d} ({WEEKDAYS[t.weekday()]}) {t:%H:%M} KST"
