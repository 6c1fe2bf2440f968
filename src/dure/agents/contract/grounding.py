"""Contract answers grounded in what was collected: no figure the sources do not hold, and
no figure of the cited article that the question needs left out.

- `Gate`: each finished sentence of the answer is shown only when every figure in it occurs
  in the sources, the question or the previous turn (by value: "1천분의 1.5" = "0.15%"); a
  sentence with an invented figure never reaches the user, and the turn says it was left out.
- `missing_quotes`: sentences of the cited articles that carry figures, share a word with the
  question and are not in the answer — at most two, appended verbatim as a quote.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from dure.agents.contract.rules import nouns
from dure.events import Thinking, Token, emit
from dure.korean.figures import figures, unsupported
from dure.sources import Source

#: Words every contract question shares with every article: they show no bearing.
_GENERIC = {"조항", "조", "내용", "계약", "계약서", "경우", "얼마", "무엇", "뭐", "때"}
_CLAUSE = re.compile(r"(?<=다\.)\s+|\n+")
MAX_QUOTES = 2


@dataclass
class Gate:
    """Passes sentences whose figures the `sources` texts support; emits them as tokens."""

    sources: list[str]
    dropped: list[str] = field(default_factory=list)

    def __call__(self, sentence: str) -> str:
        if unsupported(sentence, self.sources):
            self.dropped.append(sentence.strip())
            return ""
        emit(Token(content=sentence))
        return sentence

    def report(self) -> None:
        """Say that sentences were left out (never a silent change)."""
        if self.dropped:
            emit(
                Thinking(
                    step="respond",
                    content=f"근거 자료에서 확인되지 않는 수치가 있는 문장 {len(self.dropped)}개를 "
                    "답변에서 뺐습니다.",
                )
            )


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
