"""Figures in Korean text (amounts, rates, periods, counts), compared by value, not by spelling.

"1천분의 1.5" = "0.15%", "55만 원" = "550,000원", "일억이천만원" = "120,000,000원": each figure
becomes the set of values it can stand for (a fraction also stands for its numerator and
denominator, a percentage for its ratio), and a figure is supported by a text when the two
sets meet. Article labels ("제15조", "제2항", "3호"), list markers ("1.", "①", also where a
quote opens: "“3. 잔금") and the digits inside words are not figures.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from dure.korean.numbers import SINO_DIGITS, sino_korean_number

# Possessive, and only from the start of a digit run: a long run of digits costs linear time.
_NUM = r"(?<![\d.,])\d++(?:,\d{3})*+(?:\.\d+)?+"
_SINO = "[" + "".join(SINO_DIGITS) + "십백천" + "]"
# "1천", "2만 5천", "120만", "1억 2천만"; Sino-Korean only as money ("금 일억이천만원"), since
# "이천" or "오만" are also words.
_DIGIT_BIG = rf"{_NUM}\s*[억만천]+(?:\s*{_NUM}\s*[억만천]+)*(?:\s*{_NUM})?"
_SINO_MONEY = rf"(?:{_SINO}+[억만])+{_SINO}*(?=\s*원)"
_AMOUNT = rf"(?:{_DIGIT_BIG}|{_SINO_MONEY}|{_NUM})"
_FRACTION = re.compile(rf"({_AMOUNT})\s*분\s*의\s*({_AMOUNT})")
_PERCENT = re.compile(rf"({_NUM})\s*(?:%|퍼센트|프로)")
_FIGURE = re.compile(_AMOUNT)
_NOT_FIGURES = re.compile(
    rf"제\s*{_NUM}\s*(?:조(?:\s*의\s*\d+)?|항|호|장|절)"
    rf"|{_NUM}\s*(?:조(?:\s*의\s*\d+)?(?!\s*[원억만])|항|호)"
    r"|^\s*\d+[.)]\s|(?<=[“\"‘'「])\s*\d+[.)]\s|[①-⑳]|[A-Za-z]+\d+|(?<!\d)\d++[A-Za-z]+",
    re.MULTILINE,
)
_BIG_UNITS = {"억": 100_000_000, "만": 10_000}
#: A whole number at most this counts things an answer is shaped by ("3가지", "2단계", a list's
#: "1.") rather than a figure it claims (`dure.honest.unchecked`, `dure.korean.anchors`).
SMALL_COUNT = 10


@dataclass(frozen=True)
class Figure:
    """A figure as written, and the values it can stand for."""

    surface: str
    values: frozenset[float]


def _value(token: str) -> float | None:
    """The value of a number as written: "1,500", "1.5", "1천", "일억이천만", "2만 5천"."""
    rest = token.replace(",", "").replace(" ", "")
    total = 0.0
    for unit, size in _BIG_UNITS.items():
        if unit in rest:
            head, rest = rest.split(unit, 1)
            lead = _small(head) if head else 1.0
            if lead is None:
                return None
            total += lead * size
    if not rest:
        return total
    small = _small(rest)
    return None if small is None else total + small


def _small(token: str) -> float | None:
    """Below 만: "3", "1.5", "1천", "천오백", "5천300", "이천"."""
    try:
        return float(token)
    except ValueError:
        pass
    if "천" in token:
        head, _, tail = token.partition("천")
        lead = _small(head) if head else 1.0
        rest = _small(tail) if tail else 0.0
        return None if lead is None or rest is None else lead * 1000 + rest
    sino = sino_korean_number(token)
    return float(sino) if sino is not None else None


def figures(text: str) -> list[Figure]:
    """The figures of `text`, in order of kind (fractions, percentages, the rest)."""
    text = _NOT_FIGURES.sub(" ", text)
    found: list[Figure] = []
    taken: list[tuple[int, int]] = []

    def free(span: tuple[int, int]) -> bool:
        return not any(a < span[1] and span[0] < b for a, b in taken)

    for m in _FRACTION.finditer(text):
        den, num = _value(m.group(1)), _value(m.group(2))
        if den and num is not None:
            found.append(Figure(m.group(0), frozenset({den, num, num / den, num / den * 100})))
            taken.append(m.span())
    for m in _PERCENT.finditer(text):
        if free(m.span()):
            pct = float(m.group(1).replace(",", ""))
            found.append(Figure(m.group(0), frozenset({pct, pct / 100})))
            taken.append(m.span())
    for m in _FIGURE.finditer(text):
        v = _value(m.group(0))
        if free(m.span()) and v is not None:
            found.append(Figure(m.group(0).strip(), frozenset({v})))
    return found


def values(texts: list[str]) -> set[float]:
    """Every value the figures of `texts` stand for."""
    return {v for t in texts for f in figures(t) for v in f.values}


def unsupported(answer: str, sources: list[str]) -> list[Figure]:
    """The figures of `answer` that no figure of `sources` supports."""
    return unheld(figures(answer), values(sources))


def unheld(found: list[Figure], known: set[float]) -> list[Figure]:
    """The figures of `found` that no value of `known` (`values`) stands for."""
    return [f for f in found if not any(_close(v, k) for v in f.values for k in known)]


#: A date or time as written: "2026-11-25", "14:30", "2026년", "11월", "25일", "9시", "30분".
_DATE_TIME = re.compile(
    r"\d{4}-\d{1,2}-\d{1,2}|\d{1,2}:\d{2}(?::\d{2})?|(\d{1,4})\s*(?:년|월|일|시|분)(?!\s*[동간])"
)


def without_clock(text: str, clock: str) -> str:
    """`text` without the dates and times that `clock` (the current date-time) holds, so that
    "오늘은 11월 25일입니다" rests on the clock while a "25°C" does not."""
    known = values([clock])

    def held(m: re.Match[str]) -> str:
        numbers = re.findall(r"\d+", m.group(0))
        return " " if all(float(n) in known for n in numbers) else m.group(0)

    return _DATE_TIME.sub(held, text)


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))
