"""Codes a question names ("E05", "e3", "P2"), and whether the user's documents list them.

A manual lists its codes (E01, E03, E06, E08). Asked about one it does not list ("E05 에러는
뭐임?"), the route sent the question to the agent and the 1.5B model answered from memory:
"E05는 Python에서 발생하는 에러 중 하나로…" (documents dev set). A code is near-certain: the
documents list it or they do not. So a question naming a code the documents list, or a code
of a family they list (`LISTED` or more codes with its letters), is a document question; and
when they list its family but not it, the answer says so by rule (`absent_answer`).
The same number is the same code however written ("E3" = "E03").
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

__all__ = ["Code", "Listing", "absent_answer", "codes", "listing"]

#: Letters written right before digits, alone as a word: "E05", "e3", "P2" (not "E-300", "5kg",
#: "AF550X", nor a Korean word's Latin neighbour: "E05에러" is E05).
_CODE = re.compile(r"(?<![A-Za-z0-9])([A-Za-z]{1,2})(\d{1,3})(?![A-Za-z0-9])")
#: How many codes of one family make the documents a list of them (one is a model name).
LISTED = 2


@dataclass(frozen=True)
class Code:
    """A code: its letters (upper case), its number, and how it was written."""

    family: str
    number: int
    written: str


def codes(text: str) -> list[Code]:
    """The codes of `text`, in order, each once."""
    found: dict[tuple[str, int], Code] = {}
    for m in _CODE.finditer(text):
        code = Code(m.group(1).upper(), int(m.group(2)), m.group(0).upper())
        found.setdefault((code.family, code.number), code)
    return list(found.values())


@dataclass(frozen=True)
class Listing:
    """What the documents say of the question's codes: the ones they list, and the asked ones
    they do not, with the codes they list of those families."""

    held: list[Code]
    missing: list[Code]
    family: list[Code]


def listing(question: str, texts: Sequence[str]) -> Listing | None:
    """The question's codes against `texts`, or None when the question names no code the texts
    list and no code of a family they list."""
    asked = codes(question)
    if not asked:
        return None
    listed = codes("\n".join(texts))
    numbers = {(c.family, c.number) for c in listed}
    held = [c for c in asked if (c.family, c.number) in numbers]
    families = {c.family for c in asked if sum(x.family == c.family for x in listed) >= LISTED}
    missing = [c for c in asked if c not in held and c.family in families]
    if not held and not missing:
        return None
    family = sorted((c for c in listed if c.family in families), key=lambda c: c.number)
    return Listing(held, missing, family)


async def absent_answer(
    question: str, texts: Sequence[str], search: Callable[[str], Awaitable[list[str]]]
) -> str | None:
    """The answer, by rule, when the question asks only of codes `texts` do not list though
    they list others of the kind; None otherwise (the model answers). The codes are searched
    for alone first (`search`: passages for a text): one listed where the question's own search
    did not reach is not absent."""
    found = listing(question, texts)
    if found is None or found.held or not found.missing:
        return None
    more = await search(" ".join(c.written for c in found.missing))
    found = listing(question, [*texts, *more])
    if found is None or found.held or not found.missing:
        return None
    asked = ", ".join(c.written for c in found.missing)
    shown = ", ".join(c.written for c in found.family)
    return (
        f"올려 주신 문서에는 {asked}에 대한 내용이 없습니다. 문서에 나오는 같은 종류의 코드는 "
        f"{shown}입니다. 다른 설명서나 안내문이 있으면 추가해 주세요. 없다면 제조사나 "
        "서비스센터에 확인해 보시는 것이 정확합니다."
    )
