"""Contract answers that leave out no figure of the cited article the question needs
(`dure.honest.Gate` keeps out the figures the sources do not hold).

`missing_quotes`: sentences of the cited articles that carry figures, share a word with the
question and are not in the answer — at most two, appended verbatim as a quote.
"""

from __future__ import annotations

import re

from dure.agents.contract.rules import nouns
from dure.korean.figures import figures, unsupported
from dure.sources import Source

#: Words every contract question shares with every article: they show no bearing.
_GENERIC = {"조항", "조", "내용", "계약", "계약서", "경우", "얼마", "무엇", "뭐", "때"}
_CLAUSE = re.compile(r"(?<=다\.)\s+|\n+")
MAX_QUOTES = 2


def _nouns(text: str) -> set[str]:
    return nouns(text) - _GENERIC


def missing_quotes(question: str, answer: str, cited: list[Source]) -> str:
    """The cited articles' figure-bearing sentences the question needs and the answer lacks,
    as a quote to append (empty when there are none)."""
    asked = _nouns(question)
    quotes: list[str] = []
    for source in cited:
        if source.kind != "contract" or not source.article_no or not asked:
            continue
        for clause in _CLAUSE.split(source.text):
            clause = clause.strip()
            bears = asked & _nouns(clause)
            if clause and bears and figures(clause) and unsupported(clause, [answer]):
                quotes.append(f"{source.article_no}: “{clause}”")
            if len(quotes) == MAX_QUOTES:
                break
    if not quotes:
        return ""
    return "\n\n조항 원문 — " + "\n".join(quotes)
