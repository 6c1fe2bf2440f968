"""The `get_current_datetime` tool: today's date and the time, in Asia/Seoul unless asked, and
the date of a day named in words ("다음 주 금요일", "크리스마스", by
`dure.korean.slots.when.named_day`) and how many days ahead it is."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BaseModel, Field

from dure.korean.slots.when import named_day
from dure.korean.time import WEEKDAYS
from dure.tools.base import Tool, ToolResult

DEFAULT_ZONE = "Asia/Seoul"


class DatetimeArgs(BaseModel):
    """Arguments of `get_current_datetime`."""

    timezone: str | None = Field(
        None, description="IANA 시간대 (예: Asia/Seoul, America/New_York). 생략하면 Asia/Seoul"
    )
    day: str | None = Field(
        None,
        max_length=40,
        description="날짜와 요일을 알고 싶은 날 (예: 다음 주 금요일, 모레, 12월 25일, 크리스마스). "
        "생략하면 오늘",
    )


def format_datetime(moment: datetime) -> str:
    """`2025-03-15 (토요일) 14:03:12 Asia/Seoul (UTC+09:00)`."""
    offset = moment.strftime("%z")
    return (
        f"{moment:%Y-%m-%d} ({WEEKDAYS[moment.weekday()]}요일) {moment:%H:%M:%S} "
        f"{moment.tzinfo} (UTC{offset[:3]}:{offset[3:]})"
    )


def _from_today(day: date, today: date) -> str:
    """How far ahead `day` is, in words ("오늘", "오늘부터 25일 뒤"): a D-day is the tool's
    count, not the model's."""
    days = (day - today).days
    return "오늘" if days == 0 else f"오늘부터 {days}일 뒤"


def datetime_tool(now: Callable[[ZoneInfo], datetime] = datetime.now) -> Tool:
    """The `get_current_datetime` tool; `now(zone)` is the clock (tests pass a fixed one)."""

    def get_current_datetime(timezone: str | None = None, day: str | None = None) -> ToolResult:
        name = (timezone or DEFAULT_ZONE).strip()
        try:
            zone = ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError):
            if "/" in name or day:
                return ToolResult.fail(
                    f"알 수 없는 시간대입니다: {name!r} (예: Asia/Seoul, Europe/London)"
                )
            # No zone's name ("크리스마스", "day"): a plan's plain input, read as the day.
            zone, day = ZoneInfo(DEFAULT_ZONE), name
        moment = now(zone)
        if not day or not day.strip():
            return ToolResult(ok=True, content=format_datetime(moment))
        found = named_day(day, moment)
        said = (
            f"{found[0]}: {found[1]:%Y-%m-%d} ({WEEKDAYS[found[1].weekday()]}요일), "
            f"{_from_today(found[1], moment.date())}"
            if found
            else f"'{day.strip()}': 이 날은 규칙으로 읽지 못했습니다 (예: 다음 주 금요일, 12월 25일)."
        )
        return ToolResult(ok=True, content=f"{said}\n지금: {format_datetime(moment)}")

    return Tool(
        name="get_current_datetime",
        description="현재 날짜, 요일, 시각을 알려 줍니다 (기본 시간대 Asia/Seoul). "
        "다른 날의 날짜와 요일은 day에 그 날을 적으면 알려 줍니다.",
        args_schema=DatetimeArgs,
        func=get_current_datetime,
        timeout=5.0,
        own_output=True,
    )
