"""Korean numbers: digits, native counting words (한, 두, 셋 …) and money units (2만 5천)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from dure.documents.refs import SINO_DIGITS

#: Native Korean counting words (the forms used before a counter and standalone).
NATIVE: dict[str, int] = {
    "한": 1,
    "하나": 1,
    "두": 2,
    "둘": 2,
    "세": 3,
    "셋": 3,
    "석": 3,
    "네": 4,
    "넷": 4,
    "넉": 4,
    "다섯": 5,
    "여섯": 6,
    "일곱": 7,
    "여덟": 8,
    "아홉": 9,
    "열": 10,
    "열한": 11,
    "열하나": 11,
    "열두": 12,
    "열둘": 12,
    "열세": 13,
    "열셋": 13,
    "열네": 14,
    "열넷": 14,
    "열다섯": 15,
    "스무": 20,
    "스물": 20,
}
#: "두세 명", "서너 명": a span of two numbers; the larger one is what a booking needs.
NATIVE_SPANS: dict[str, int] = {"한두": 2, "두세": 3, "두셋": 3, "서너": 4, "너덧": 5, "네다섯": 5}


def alternation(words: Iterable[str]) -> str:
    """A regex alternation of `words`, longest first (so 열두 wins over 열)."""
    return "|".join(sorted((re.escape(w) for w in words), key=len, reverse=True))


#: A count: digits, a native word or a native span ("두세").
COUNT = rf"(?:\d{{1,3}}|{alternation([*NATIVE_SPANS, *NATIVE])})"


def count_value(token: str) -> int | None:
    """The number a COUNT token stands for (`"두"` → 2, `"12"` → 12, `"서너"` → 4)."""
    token = token.strip()
    if token.isdigit():
        return int(token)
    return NATIVE_SPANS.get(token) or NATIVE.get(token)


_UNIT_NUM = r"(?:\d+(?:\.\d+)?|[일이삼사오육칠팔구])"
#: An amount of won written with units or digits: "2만 5천", "만오천", "1.5만", "25,000", "8천".
AMOUNT = (
    rf"(?:(?:{_UNIT_NUM}\s*)?만(?:\s*{_UNIT_NUM}?\s*천)?(?:\s*{_UNIT_NUM}?\s*백)?"
    rf"|{_UNIT_NUM}\s*천(?:\s*{_UNIT_NUM}?\s*백)?"
    r"|\d{1,3}(?:,\d{3})+|\d{3,})"
)
_UNITS = {"만": 10_000, "천": 1_000, "백": 100}
_UNIT_PART = re.compile(rf"({_UNIT_NUM})?\s*([만천백])")


def _unit_number(token: str | None) -> float:
    if not token:
        return 1
    return SINO_DIGITS.get(token) or float(token)


def amount_value(text: str) -> int | None:
    """The won amount of an AMOUNT match (`"2만 5천"` → 25000, `"15,000"` → 15000)."""
    text = text.strip()
    plain = text.replace(",", "")
    if plain.isdigit():
        return int(plain)
    parts = _UNIT_PART.findall(text)
    if not parts:
        return None
    return int(round(sum(_unit_number(num) * _UNITS[unit] for num, unit in parts)))
