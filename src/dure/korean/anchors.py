"""Whether a figure an answer took from documents comes from a line about what the answer says.

A figure the documents hold can still be the wrong one: the 1.5B model read over a document's
lines and answered "야근수당은 시간당 10만 원입니다." from "연중 입사자는 … 월 10만 포인트로 …",
and "전기세 한달에 보통 85만 원 정도 나와요." from "월 차임(월세): 85만 원" (documents dev set). A
value check (`dure.korean.figures.unsupported`) passes both. Here a figure is *anchored* when a
line of the passages that holds it shares a noun with the sentence (one noun inside the other
counts: 휴가 — 경조휴가); a line's nouns include its passage's heading, which names a table's
rows. A line that holds every figure of the sentence (two or more, the user's among them:
"6개월권 … 300,000원") anchors them all. The user's own figures are anchored by saying them, and
a bare small number ("1.", "2") is a list marker, not a claim. A sentence without nouns
("5일이에요.") is about the question.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from dure.korean.figures import SMALL_COUNT, Figure, figures, unheld, values
from dure.korean.specific import nouns
from dure.korean.text import SENTENCE

__all__ = ["unanchored"]

#: A section's number in a heading path (Kiwi reads "4. 주차" as 4주 차).
_NUMBERED = re.compile(r"\d+\.\s*")


def _bare_small(figure: Figure, sentence: str) -> bool:
    if not all(v.is_integer() and v <= SMALL_COUNT for v in figure.values):
        return False
    return not re.search(re.escape(figure.surface) + r"\s*[가-힣A-Za-z%]", sentence)


def _share(a: set[str], b: set[str]) -> bool:
    return any(x in y or y in x for x in a for y in b)


@lru_cache(maxsize=16)  # the Gate asks once a sentence, of the same passages
def _lines(passages: tuple[str, ...]) -> list[tuple[set[float], set[str]]]:
    """Each line with figures, as its figures' values and its nouns with its passage heading's
    (the first line: "규정 > 4. 주차")."""
    found: list[tuple[set[float], set[str]]] = []
    for passage in passages:
        heading = set(nouns(_NUMBERED.sub(" ", passage.lstrip().split("\n", 1)[0])))
        lines = (line.strip() for line in SENTENCE.split(passage))
        found += [(values([line]), set(nouns(line)) | heading) for line in lines if figures(line)]
    return found


def unanchored(sentence: str, passages: Sequence[str], said: Sequence[str] = ()) -> list[Figure]:
    """The figures of `sentence` that `passages` hold only in lines about something else.

    `said` is what the user said, last the question: its figures are anchored, and its nouns
    stand for a sentence that has none. A figure no line holds is not this check's business."""
    written = [f for f in figures(sentence) if not _bare_small(f, sentence)]
    claimed = unheld(written, values(list(said)))
    if not claimed:
        return []
    lines = _lines(tuple(passages))
    if len(written) >= 2 and any(not unheld(written, held) for held, _ in lines):
        return []
    own = set(nouns(sentence)) or set(nouns(said[-1] if said else ""))
    loose = []
    for figure in claimed:
        holders = [named for held, named in lines if not unheld([figure], held)]
        if holders and not any(_share(own, named) for named in holders):
            loose.append(figure)
    return loose
