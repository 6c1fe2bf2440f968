"""Contract answers that leave out no figure of the cited article the question needs
(`dure.honest.Gate` keeps out the figures the sources do not hold).

`named_focus`: the articles a question names, when they are all it asks about (the answer then
rests on them alone). `missing_quotes`: sentences of the cited articles that carry figures,
share a word with the question and are not in the answer — at most two, appended verbatim as a
quote. An article the question names by number counts as cited even when the answer cites
another: the small model sometimes writes the neighbouring article's content for "제십사조 보면 …".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from dure.agents.contract.context import collected_articles
from dure.agents.contract.rules import nouns
from dure.documents.refs import extract_article_refs
from dure.korean.figures import figures, unsupported
from dure.sources import Source, unique_sources

#: Words every contract question shares with every article: they show no bearing.
_GENERIC = {"조항", "조", "내용", "계약", "계약서", "경우", "얼마", "무엇", "뭐", "때"}
_CLAUSE = re.compile(r"(?<=다\.)\s+|\n+")
MAX_QUOTES = 2


def _nouns(text: str) -> set[str]:
    return nouns(text) - _GENERIC


def named_focus(question: str, collected_info: list[dict[str, Any]]) -> list[str]:
    """The articles the question names by number, unless it also asks about a word only another
    collected article holds ("제5조 지체상금이랑 대금 지급 시기" with 제3조 collected): then
    empty, and the answer keeps everything collected."""
    named = extract_article_refs(question)
    articles = collected_articles(collected_info, "contract")
    inside = [a["text"] for a in articles if a.get("article_no") in named]
    if not inside:
        return []
    beyond = _nouns(question) - _nouns("\n".join(inside))
    others = _nouns("\n".join(a["text"] for a in articles if a.get("article_no") not in named))
    return [] if beyond & others else named


def missing_quotes(
    question: str, answer: str, cited: list[Source], named: Sequence[Source] = ()
) -> str:
    """The cited articles' figure-bearing sentences the question needs and the answer lacks,
    as a quote to append (empty when there are none). `named`: the articles the question names
    by number (`rules.named_sources`), taken first even when the answer cites others.

    A sentence bears on the question when it shares a word with it; when none does ("개발이
    늦어지면 벌금 같은 거 물어야 돼?" asks about 제15조 in other words) and the answer or the
    question names the article but the answer holds none of its figures, its first
    figure-bearing sentences stand in."""
    asked = _nouns(question)
    quotes: list[str] = []
    for source in unique_sources([*named, *cited]):
        if source.kind != "contract" or not source.article_no:
            continue
        clauses = [c.strip() for c in _CLAUSE.split(source.text) if c.strip() and figures(c)]
        bearing = [c for c in clauses if asked & _nouns(c)]
        rests_on = source.article_no in answer or source in named
        if rests_on and not bearing and not any(not unsupported(c, [answer]) for c in clauses):
            bearing = clauses  # the answer rests on the article but gave none of its figures
        quotes += [f"{source.article_no}: “{c}”" for c in bearing if unsupported(c, [answer])]
    if not quotes:
        return ""
    return "\n\n조항 원문 — " + "\n".join(quotes[:MAX_QUOTES])
