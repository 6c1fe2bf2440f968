"""The utterance being parsed: found mentions, spans already claimed, and corrections.

Extractors run in a fixed order and each claims the spans it understood (blanked out in a
working copy, positions kept), so a later extractor never reads "30분" of "12시 30분" as
people or "3시" out of "3시간 뒤". A mention directly followed by 말고 / 아니라 / 대신 is
negated; among the rest the last one wins, so "3명 말고 4명" and "2명에서 3명으로" give the
correction, not the first value.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from dure.korean.numbers import FEW_NATIVE

#: What follows a value the user takes back ("한식 말고", "3명 아니고").
TAKEN_BACK = re.compile(r"\s*(?:은|는|이|가|을|를)?\s*(?:말고|아니고|아니라|대신|빼고|제외하고)")


@dataclass
class Mention:
    """One value found in the text (`kind` is the slot type it fills)."""

    kind: str
    value: Any
    start: int
    end: int
    negated: bool = False


@dataclass
class Utterance:
    """The raw text, a masked working copy and the mentions found so far."""

    raw: str
    text: str = ""
    mentions: list[Mention] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.text = self.text or self.raw

    def mask(self, start: int, end: int) -> None:
        """Blank out a span so no later extractor reads it."""
        self.text = self.text[:start] + " " * (end - start) + self.text[end:]

    def add(self, kind: str, value: Any, start: int, end: int) -> Mention:
        """Record a mention and claim its span."""
        mention = Mention(kind, value, start, end, bool(TAKEN_BACK.match(self.raw, end)))
        self.mentions.append(mention)
        self.mask(start, end)
        return mention

    def claimed(self, kind: str) -> list[tuple[int, int]]:
        """The spans of the mentions of one kind so far."""
        return [(m.start, m.end) for m in self.mentions if m.kind == kind]

    def of(self, kind: str) -> list[Mention]:
        """Mentions of one kind, in text order."""
        return sorted((m for m in self.mentions if m.kind == kind), key=lambda m: m.start)

    def pick(self, kind: str) -> Mention | None:
        """The mention that counts: the last one not negated."""
        kept = [m for m in self.of(kind) if not m.negated]
        return kept[-1] if kept else None

    def only_negated(self, kind: str) -> bool:
        """True when every mention of `kind` was negated ("한식 말고" with no alternative)."""
        found = self.of(kind)
        return bool(found) and all(m.negated for m in found)


#: Numbers that are not slots: subway lines, exits, bus numbers, floors, portions, deadlines
#: ("1시 전엔"), lengths and distances ("3시간짜리", "도보 5분"). A time counted from now
#: ("30분 뒤") is read before this mask (`when.extract_relative_times`).
DISTRACTORS = re.compile(
    r"\d+\s*호선"
    r"|\d+\s*번(?:\s*(?:출구|출입구|게이트|버스|마을버스|테이블|방|자리|째))?"
    rf"|(?:\d+|{FEW_NATIVE})\s*(?:시간|분|일|주|달)\s*(?:반\s*)?(?:정도\s*)?(?:뒤|후|전|거리|걸려|걸리는|걸어서|만에)"
    r"|(?:도보|걸어서)\s*\d+\s*분"
    rf"|(?:\d{{1,2}}|{FEW_NATIVE})\s*시\s*(?:전|이전|넘어서|넘으면)"  # a deadline, not the time
    r"|\d+\s*(?:층|인분|차|번째|살|개|그릇|km|킬로|미터|%)"
)


def mask_distractors(u: Utterance) -> None:
    """Blank out the numbers that must never become slot values."""
    for m in DISTRACTORS.finditer(u.text):
        u.mask(m.start(), m.end())
