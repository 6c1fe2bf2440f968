"""Dates, times and durations, resolved against a given "now" in Asia/Seoul.

Rules (no LLM): 오늘/내일/모레/글피 (today / tomorrow); 이번 주·다음 주 + 요일 (weeks start on
Monday; "이번 주 월요일" already past means next week's); a bare 요일 is its next occurrence
(today included); "3월 7일"; "3일 뒤", "이틀 후", "한 달 뒤", "오늘부터 1년 뒤", "2주 후
금요일"; fixed-date days by name ("크리스마스", "한글날": `HOLIDAYS`, the next one); "다음 달
3일", and a bare "20일" before a time
or a meal (this month's if still ahead, else next month's). Times: "12시 반", "12시 30분",
"12:30", "정오", "오후 1시" ("12:30pm", "noon"); without 오전/오후 an hour from 1 to 6 is
afternoon. "점심" alone is no time. "10시부터 12시까지" is a start and a duration. A time without
a date is today if still ahead of now, otherwise tomorrow.
"""

from __future__ import annotations

import re
from calendar import monthrange
from datetime import date, datetime, time, timedelta

from dure.korean.numbers import FEW_NATIVE, NATIVE, alternation
from dure.korean.slots.core import Utterance
from dure.korean.time import SEOUL, WEEKDAYS

_PM = {"오후", "저녁", "밤"}
_AM = {"오전", "아침", "새벽"}
# "점심 11시 50분" is before noon and "점심 1시" after: these read like a bare hour.
_MIDDAY = {"점심", "낮"}
_HOURS = alternation(k for k, v in NATIVE.items() if v <= 12)
_MER = alternation(_PM | _AM | _MIDDAY)
TIME = re.compile(
    rf"(?:(?P<mer>{_MER})\s*)?"
    rf"(?:(?P<h>\d{{1,2}}|{_HOURS})\s*시(?!간)(?:\s*(?P<half>반)|\s*(?P<min>\d{{1,2}})\s*분(?!\s*(?:동안|뒤|후|전)))?"
    r"|(?P<hh>\d{1,2}):(?P<mm>[0-5]\d)(?!\s*(?i:[ap]\.?m\b))"
    r"|(?P<noon>정오|(?i:noon)\b))"
    # English: "12pm", "12:30 pm", "1 p.m."
    r"|(?<![\d:.])(?P<eh>\d{1,2})(?::(?P<em>[0-5]\d))?\s*(?P<ampm>(?i:[ap])\.?(?i:m)\b\.?)"
)
_RANGE_SEP = re.compile(r"\s*(부터|~|-|에서)\s*$")
_RANGE_END = re.compile(r"\s*(까지|사이)")
_TO = re.compile(r"\s*(?:으로|로)(?![가-힣])")

_RELATIVE = {"오늘": 0, "금일": 0, "내일모레": 2, "내일": 1, "모레": 2, "글피": 3}
_RELATIVE_EN = {"today": 0, "tonight": 0, "tomorrow": 1, "tmrw": 1, "tmr": 1}
#: Days with a fixed date every year, by name (the lunar ones, 설날 and 추석, move: not here).
HOLIDAYS = {
    **dict.fromkeys(("신정", "새해 첫날"), (1, 1)),
    **dict.fromkeys(("발렌타인데이", "밸런타인데이"), (2, 14)),
    "삼일절": (3, 1),
    "화이트데이": (3, 14),
    "어린이날": (5, 5),
    "어버이날": (5, 8),
    "현충일": (6, 6),
    "제헌절": (7, 17),
    "광복절": (8, 15),
    "개천절": (10, 3),
    "한글날": (10, 9),
    **dict.fromkeys(("할로윈", "핼러윈", "halloween"), (10, 31)),
    "빼빼로데이": (11, 11),
    **dict.fromkeys(("크리스마스이브", "christmas eve"), (12, 24)),
    **dict.fromkeys(("크리스마스", "성탄절", "christmas"), (12, 25)),
}
DATE = re.compile(
    rf"(?<![A-Za-z])(?P<hol>(?i:{alternation(HOLIDAYS)}))(?![A-Za-z])"
    rf"|(?P<rel>{alternation(_RELATIVE)}|낼(?=\s|$|[,.]))"
    rf"|(?<![A-Za-z])(?P<en>(?i:{alternation(_RELATIVE_EN)}))(?![A-Za-z])"
    r"|(?P<wk>이번\s*주|금주|다다음\s*주|다음\s*주|담주|차주)?\s*(?P<wd>[월화수목금토일])(?:요일|욜)"
    r"|(?:(?P<y>\d{4})\s*년\s*)?(?P<mo>\d{1,2})\s*월\s*(?P<d>\d{1,2})\s*일"
    # a day of this or a later month ("다음 달 3일"), or a bare day before a time or a meal
    # ("20일 점심", "5일 12시"), not a count of days ("3일 동안", "3일째", "주 3일")
    r"|(?:(?P<mrel>이번\s*달|이달|다다음\s*달|다음\s*달|담달)\s*)(?P<md>\d{1,2})\s*일"
    r"|(?<![\d.])(?<!주)(?<!주\s)(?P<bd>\d{1,2})\s*일(?![가-힣])"
)
_MONTH_OFFSET = {"이번달": 0, "이달": 0, "다음달": 1, "담달": 1, "다다음달": 2}
#: What follows a bare day for it to be a date (read on the raw text: times are masked by then).
_DAY_BEFORE = re.compile(rf"\s*(?:{_MER}|(?:\d{{1,2}}|{_HOURS})\s*시|\d{{1,2}}:\d\d|정오)")
DURATION = re.compile(
    rf"(?P<h>\d{{1,2}}|{_HOURS})\s*시간(?:\s*(?P<half>반)|\s*(?P<hm>\d{{1,2}})\s*분)?"
    r"|(?P<m>\d{1,3})\s*분"
)
_WEEK_OFFSET = {"이번주": 0, "금주": 0, "다음주": 7, "담주": 7, "차주": 7, "다다음주": 14}


def _hour(token: str) -> int:
    return int(token) if token.isdigit() else NATIVE[token]


def to_24h(hour: int, meridiem: str | None) -> int:
    """The hour on a 24-hour clock; bare 1–6 o'clock means the afternoon."""
    if meridiem in _PM:
        return hour if hour >= 12 else hour + 12
    if meridiem in _AM:
        return 0 if hour == 12 else hour
    return hour + 12 if 1 <= hour <= 6 else hour


def _time_of(m: re.Match[str]) -> time | None:
    if m.group("noon"):
        return time(12, 0)
    if m.group("ampm"):
        hour, minute = int(m.group("eh")), int(m.group("em") or 0)
        return _valid(to_24h(hour, "오후" if m.group("ampm")[0] in "pP" else "오전"), minute)
    if m.group("hh"):
        hour, minute = int(m.group("hh")), int(m.group("mm"))
        hour = to_24h(hour, m.group("mer")) if hour <= 12 else hour
    else:
        hour = to_24h(_hour(m.group("h")), m.group("mer"))
        minute = 30 if m.group("half") else int(m.group("min") or 0)
    return _valid(hour, minute)


def _valid(hour: int, minute: int) -> time | None:
    return time(hour, minute) if hour <= 23 and minute <= 59 else None


def _minutes(t: time) -> int:
    return t.hour * 60 + t.minute


def extract_times(u: Utterance) -> None:
    """Times (`time`) and time ranges (`time` + `duration`)."""
    found = [(m, t) for m in TIME.finditer(u.text) if (t := _time_of(m)) is not None]
    i = 0
    while i < len(found):
        m, start = found[i]
        if i + 1 < len(found):
            m2, end = found[i + 1]
            sep = _RANGE_SEP.match(u.text[m.end() : m2.start()])
            closes = _RANGE_END.match(u.text, m2.end())
            if sep and not _TO.match(u.text, m2.end()) and (sep.group(1) != "에서" or closes):
                if _minutes(end) <= _minutes(start) and end.hour < 12:
                    end = time(end.hour + 12, end.minute)
                stop = closes.end() if closes else m2.end()
                u.add("time", start, m.start(), m2.end())
                u.add("duration", _minutes(end) - _minutes(start), m2.start(), stop)
                i += 2
                continue
        u.add("time", start, m.start(), m.end())
        i += 1


def _weekday_date(today: date, week: str | None, weekday: str) -> date:
    idx = WEEKDAYS.index(weekday)
    if week is None:
        return today + timedelta(days=(idx - today.weekday()) % 7)
    monday = today - timedelta(days=today.weekday())
    day = monday + timedelta(days=_WEEK_OFFSET[re.sub(r"\s+", "", week)] + idx)
    return day + timedelta(days=7) if day < today else day


def _month_day(today: date, month: str | None, day: int) -> date | None:
    """Day `day` of the month named ("다음 달"), or of this month if still ahead (else the next)."""
    offset = _MONTH_OFFSET[re.sub(r"\s+", "", month)] if month else 0
    for extra in (0, 1) if month is None else (0,):
        index = today.year * 12 + today.month - 1 + offset + extra
        try:
            found = date(index // 12, index % 12 + 1, day)
        except ValueError:  # "31일" of a 30-day month
            return None
        if month is not None or found >= today:
            return found
    return None


def extract_dates(u: Utterance, now: datetime) -> None:
    """Dates (`date`)."""
    today = now.date()
    for m in DATE.finditer(u.text):
        if m.group("hol"):
            month, mday = HOLIDAYS[m.group("hol").lower()]
            day = date(today.year, month, mday)
            day = day if day >= today else day.replace(year=today.year + 1)
        elif m.group("rel"):
            day = today + timedelta(days=_RELATIVE.get(m.group("rel"), 1))
        elif m.group("en"):
            day = today + timedelta(days=_RELATIVE_EN[m.group("en").lower()])
        elif m.group("wd"):
            day = _weekday_date(today, m.group("wk"), m.group("wd"))
        elif m.group("md") or m.group("bd"):
            if m.group("bd") and not _DAY_BEFORE.match(u.raw, m.end()):
                continue
            found = _month_day(today, m.group("mrel"), int(m.group("md") or m.group("bd")))
            if found is None:
                continue
            day = found
        else:
            try:
                day = date(int(m.group("y") or today.year), int(m.group("mo")), int(m.group("d")))
            except ValueError:  # "2월 30일"
                continue
            if not m.group("y") and day < today:
                day = day.replace(year=day.year + 1)
        u.add("date", day, m.start(), m.end())


#: Days in the past, which `DATE` does not read ("지난주 토요일" would be read as the next one).
_PAST = re.compile(r"지난|저번|어제|그제|그저께|작년")


def named_day(text: str, now: datetime) -> tuple[str, date] | None:
    """The one day `text` names ("다음 주 금요일이 며칠이야?" → "다음 주 금요일"), as written and
    resolved against `now`; None when it names none, several, or a past day."""
    if _PAST.search(text):
        return None
    u = Utterance(text)
    extract_relative_days(u, now)
    extract_dates(u, now)
    days = u.of("date")
    if len(days) != 1:
        return None
    return text[days[0].start : days[0].end].strip(), days[0].value


def extract_durations(u: Utterance) -> None:
    """How long (`duration`, minutes): "1시간 반", "30분", "두 시간"."""
    for m in DURATION.finditer(u.text):
        if m.group("h"):
            minutes = _hour(m.group("h")) * 60 + (
                30 if m.group("half") else int(m.group("hm") or 0)
            )
        else:
            minutes = int(m.group("m"))
        u.add("duration", minutes, m.start(), m.end())


def resolve_at(day: date | None, at: time, now: datetime) -> datetime:
    """A full date-time: a time without a date is its next occurrence after `now`."""
    if day is None:
        day = (
            now.date()
            if at >= now.time().replace(second=0, microsecond=0)
            else now.date() + timedelta(days=1)
        )
    return datetime.combine(day, at, tzinfo=SEOUL)


#: "30분 뒤", "1시간 후", "한 시간 반 뒤", "지금부터 40분 후", "한시간 있다가".
RELATIVE = re.compile(
    rf"(?:지금\s*부터\s*)?(?P<n>\d{{1,3}}|{FEW_NATIVE})\s*(?P<unit>시간|분)\s*(?P<half>반\s*)?"
    r"(?:정도\s*)?(?:뒤|후|있다가|이따가?)(?![가-힣]*짜리)"
    # the time of something else, not of the meal: "2시간 뒤에 회의라 빨리"
    r"(?!\s*(?:에|엔|에는)?\s*(?:회의|미팅|약속|수업|강의|면접|발표|출발|일정|비행기|기차|시험))"
)


#: Days counted from today: "3일 뒤", "이틀 후", "열흘 뒤", "2주 후", "한 달 뒤", "6개월 후",
#: "오늘부터 1년 뒤"; "2주 후 금요일" is that week's Friday. Not a date's day ("12월 1일 후").
_DAYS = {
    "이틀": 2, "사흘": 3, "나흘": 4, "닷새": 5, "엿새": 6, "이레": 7, "일주일": 7, "열흘": 10, "보름": 15,
}  # fmt: skip
_COUNT = rf"(?:\d{{1,2}}|{FEW_NATIVE})"
RELATIVE_DAYS = re.compile(
    r"(?:(?:오늘|지금)\s*(?:으?로\s*)?(?:부터|기준(?:으로)?)\s*)?"
    r"(?:(?<![\d.월])(?<!월\s)(?P<n>\d{1,3})\s*일"
    rf"|(?P<weeks>{_COUNT})\s*주(?:일)?|(?P<months>{_COUNT})\s*(?:개월|달)|(?P<years>{_COUNT})\s*년"
    rf"|(?P<word>{alternation(_DAYS)}))\s*(?:뒤|후)"
    r"(?:\s*(?:의\s*)?(?P<wd>[월화수목금토일])(?:요일|욜))?"
)


def _count(token: str | None) -> int:
    return 0 if token is None else int(token) if token.isdigit() else NATIVE[token]


def _plus_months(day: date, months: int) -> date:
    """`day` moved by whole months, kept within the month ("1월 31일" + 1 → "2월 28일")."""
    year, month = divmod(day.year * 12 + day.month - 1 + months, 12)
    return date(year, month + 1, min(day.day, monthrange(year, month + 1)[1]))


def _counted_day(m: re.Match[str], today: date) -> date:
    weeks = _count(m.group("weeks"))
    if weeks and m.group("wd"):  # "2주 후 금요일": the Friday of the week two weeks on
        monday = today - timedelta(days=today.weekday())
        return monday + timedelta(days=7 * weeks + WEEKDAYS.index(m.group("wd")))
    days = _count(m.group("n")) + 7 * weeks + _DAYS.get(m.group("word") or "", 0)
    months = _count(m.group("months")) + 12 * _count(m.group("years"))
    return _plus_months(today, months) + timedelta(days=days)


def extract_relative_days(u: Utterance, now: datetime) -> None:
    """Days counted from today ("3일 뒤", "한 달 후"): the `date`."""
    for m in RELATIVE_DAYS.finditer(u.text):
        u.add("date", _counted_day(m, now.date()), m.start(), m.end())


def extract_relative_times(u: Utterance, now: datetime) -> None:
    """Days counted from today (`extract_relative_days`), and a time counted from now ("30분
    뒤" → now + 30 minutes): its `date` and `time`."""
    extract_relative_days(u, now)
    for m in RELATIVE.finditer(u.text):
        n = int(m.group("n")) if m.group("n").isdigit() else NATIVE[m.group("n")]
        minutes = n * 60 if m.group("unit") == "시간" else n
        minutes += 30 if m.group("half") and m.group("unit") == "시간" else 0
        at = (now + timedelta(minutes=minutes)).replace(second=0, microsecond=0)
        u.add("date", at.date(), m.start(), m.end())
        u.add("time", at.time().replace(tzinfo=None), m.start(), m.end())
