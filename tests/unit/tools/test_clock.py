"""`get_current_datetime`: Asia/Seoul by default, any IANA zone, a clear refusal otherwise."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from dure.tools.base import ToolRegistry
from dure.tools.clock import datetime_tool

NOON_UTC = datetime(2025, 3, 15, 3, 0, 0, tzinfo=UTC)


def _fixed(zone: ZoneInfo) -> datetime:
    return NOON_UTC.astimezone(zone)


async def test_default_zone_is_seoul() -> None:
    registry = ToolRegistry([datetime_tool(now=_fixed)])
    result = await registry.run("get_current_datetime", {})
    assert result.ok
    assert result.content == "2025-03-15 (토요일) 12:00:00 Asia/Seoul (UTC+09:00)"


async def test_other_zone() -> None:
    registry = ToolRegistry([datetime_tool(now=_fixed)])
    result = await registry.run("get_current_datetime", {"timezone": "America/New_York"})
    assert result.content == "2025-03-14 (금요일) 23:00:00 America/New_York (UTC-04:00)"


async def test_real_clock_runs() -> None:
    result = await ToolRegistry([datetime_tool()]).run("get_current_datetime", {})
    assert result.ok and "Asia/Seoul" in result.content


async def test_unknown_zone_is_refused_in_korean() -> None:
    registry = ToolRegistry([datetime_tool(now=_fixed)])
    for zone in ("Mars/Olympus", "../../etc/passwd"):
        result = await registry.run("get_current_datetime", {"timezone": zone})
        assert not result.ok and "알 수 없는 시간대" in result.content


async def test_a_day_named_in_words_gets_its_date() -> None:
    registry = ToolRegistry([datetime_tool(now=_fixed)])  # Saturday 2025-03-15 in Seoul
    now = "지금: 2025-03-15 (토요일) 12:00:00 Asia/Seoul (UTC+09:00)"
    for day, said in (
        (
            "다음 주 금요일",
            "다음 주 금요일: 2025-03-21 (금요일), 오늘부터 6일 뒤",
        ),  # weeks start on Monday
        ("모레", "모레: 2025-03-17 (월요일), 오늘부터 2일 뒤"),
        ("5월 5일", "5월 5일: 2025-05-05 (월요일), 오늘부터 51일 뒤"),
        ("오늘부터 100일 뒤", "오늘부터 100일 뒤: 2025-06-23 (월요일), 오늘부터 100일 뒤"),
        ("1년 후", "1년 후: 2026-03-15 (일요일), 오늘부터 365일 뒤"),
        (
            "4월 1일 후",
            "4월 1일: 2025-04-01 (화요일), 오늘부터 17일 뒤",
        ),  # a date's day, not a count
        ("크리스마스", "크리스마스: 2025-12-25 (목요일), 오늘부터 285일 뒤"),  # a day by its name
        ("삼일절", "삼일절: 2026-03-01 (일요일), 오늘부터 351일 뒤"),  # this year's is past
        ("오늘", "오늘: 2025-03-15 (토요일), 오늘"),
    ):
        result = await registry.run("get_current_datetime", {"day": day})
        assert (result.ok, result.content) == (True, f"{said}\n{now}")


async def test_a_day_the_rules_cannot_read_is_said_not_guessed() -> None:
    registry = ToolRegistry([datetime_tool(now=_fixed)])
    for day in ("지난주 토요일", "추석"):  # a past day would read as the next one; 추석 moves
        result = await registry.run("get_current_datetime", {"day": day})
        assert result.ok and "규칙으로 읽지 못했습니다" in result.content
        assert result.content.endswith("2025-03-15 (토요일) 12:00:00 Asia/Seoul (UTC+09:00)")


async def test_a_plain_input_that_names_no_zone_is_read_as_the_day() -> None:
    """A plan's plain input goes to `timezone`, the tool's first argument: the 1.5B planner gave
    the clock "day" for "How many days are left until Christmas?" and every step failed."""
    registry = ToolRegistry([datetime_tool(now=_fixed)])
    result = await registry.run("get_current_datetime", {"timezone": "크리스마스"})
    assert result.ok and result.content.startswith(
        "크리스마스: 2025-12-25 (목요일), 오늘부터 285일 뒤"
    )
    result = await registry.run("get_current_datetime", {"timezone": "day"})
    assert result.ok and result.content.endswith(
        "2025-03-15 (토요일) 12:00:00 Asia/Seoul (UTC+09:00)"
    )
