"""Korean number words, once: Sino-Korean numerals (십오, 이십일), native counting words
(한, 두, 셋 …), native ordinals (첫째, 열다섯 번째), spans (두세, 서너) and money units (2만 5천).

Leaf module (no imports from `dure`): the slot parser (`dure.korean.slots`) and article
numbers (`dure.documents.refs`) both read numbers through it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable


def alternation(words: Iterable[str]) -> str:
    """A regex alternation of `words`, longest first (so 열두 wins over 열)."""
    return "|".join(sorted((re.escape(w) for w in words), key=len, reverse=True))


# --- Sino-Korean: 일 이 삼 … 십 백 천 ---

SINO_DIGITS: dict[str, int] = {
    "일": 1,
    "이": 2,
    "삼": 3,
    "사": 4,
    "오": 5,
    "육": 6,
    "륙": 6,
    "칠": 7,
    "팔": 8,
    "구": 9,
}
SINO_UNITS: dict[str, int] = {"천": 1000, "백": 100, "십": 10}
#: A Sino-Korean numeral as a regex: 십오, 이십일, 백삼.
SINO_NUMERAL = "[" + "".join(SINO_DIGITS) + "".join(SINO_UNITS) + "]+"


def sino_korean_number(word: str) -> int | None:
    """The value of a Sino-Korean numeral ("십오" 15, "이십일" 21, "백삼" 103), else None."""
    total, digit, last_unit = 0, None, 10_000
    for ch in word:
        if ch in SINO_DIGITS:
            if digit is not None:
                return None
            digit = SINO_DIGITS[ch]
        elif ch in SINO_UNITS:
            unit = SINO_UNITS[ch]
            if unit >= last_unit:
                return None
            total += (digit or 1) * unit
            digit, last_unit = None, unit
        else:
            return None
    return total + (digit or 0) if word else None


# --- Native Korean: 하나 둘 셋 …, 한 두 세 … before a counter ---

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
#: The native units 1–9 as they stand before a counter or after a ten (열한, 스물두).
_NATIVE_UNITS = ("한", "두", "세", "네", "다섯", "여섯", "일곱", "여덟", "아홉")
#: The native words for 1–5 before a counter, as a regex: "두 시간 뒤", "세 시 전".
FEW_NATIVE = alternation(_NATIVE_UNITS[:5])


def _native_ordinals() -> dict[str, int]:
    """Native Korean ordinal stems up to 39: 첫, 두, …, 열다섯, 스무, 스물한, 서른아홉."""
    words = {w: n for n, w in enumerate(("첫", *_NATIVE_UNITS[1:]), start=1)}
    words.update({"첫째": 1, "둘째": 2, "셋째": 3, "넷째": 4, "스무": 20})
    for tens, base in ((10, "열"), (20, "스물"), (30, "서른")):
        words[base] = tens
        words.update({base + w: tens + n for n, w in enumerate(_NATIVE_UNITS, start=1)})
    return words


#: Native ordinal stems (before 번째 / 째) → their number: "첫" 1, "열다섯" 15, "스물한" 21.
NATIVE_ORDINALS: dict[str, int] = _native_ordinals()

#: A count: digits, a native word or a native span ("두세").
COUNT = rf"(?:\d{{1,3}}|{alternation([*NATIVE_SPANS, *NATIVE])})"


def count_value(token: str) -> int | None:
    """The number a COUNT token stands for (`"두"` → 2, `"12"` → 12, `"서너"` → 4)."""
    token = token.strip()
    if token.isdigit():
        return int(token)
    return NATIVE_SPANS.get(token) or NATIVE.get(token)


# --- Money: 2만 5천, 만오천, 1.5만, 25,000 ---

#: A number before a money unit: digits or one Sino-Korean digit (륙, a form that only follows
#: another digit, never starts an amount).
_UNIT_NUM = r"(?:\d+(?:\.\d+)?|[일이삼사오육칠팔구])"
#: An amount of won written with units or digits: "2만 5천", "만오천", "1.5만", "25,000", "8천".
AMOUNT = (
    rf"(?:(?:{_UNIT_NUM}\s*)?만(?:\s*{_UNIT_NUM}?\s*천)?(?:\s*{_UNIT_NUM}?\s*백)?"
    rf"|{_UNIT_NUM}\s*천(?:\s*{_UNIT_NUM}?\s*백)?"
    r"|\d{1,3}(?:,\d{3})+|\d{3,})"
)
_MONEY_UNITS = {"만": 10_000, "천": 1_000, "백": 100}
_UNIT_PART = re.compile(rf"({_UNIT_NUM})?\s*([만천백])")


#: The most digits an amount of won has (a quadrillion won and more is no budget).
MAX_AMOUNT_DIGITS = 15


def _unit_number(token: str | None) -> float:
    if not token:
        return 1
    return SINO_DIGITS.get(token) or float(token)


def amount_value(text: str) -> int | None:
    """The won amount of an AMOUNT match (`"2만 5천"` → 25000, `"15,000"` → 15000)."""
    text = text.strip()
    plain = text.replace(",", "")
    if plain.isdigit():  # a run of digits no amount has ("1111…만원") is no amount
        return int(plain) if len(plain) <= MAX_AMOUNT_DIGITS else None
    parts = _UNIT_PART.findall(text)
    if not parts:
        return None
    won = sum(_unit_number(num) * _MONEY_UNITS[unit] for num, unit in parts)
    return int(round(won)) if won < 10**MAX_AMOUNT_DIGITS else None
