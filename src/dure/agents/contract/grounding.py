"""Contract answers that leave out no figure of the cited article the question needs
(`dure.honest.Gate` keeps out the figures the sources do not hold).

`settled`: why what was collected suffices by rule, and the articles the answer rests on
(`named_focus`: the articles a question names, when they are all it asks about).
`missing_quotes`: what the answer is appended verbatim, at most two lines — the cited
articles' paragraph nearest the question (multilingual-e5, the vectors search
indexed) unless the answer already says it, and sentences of the cited articles that carry
figures, share a word with the question and are not in the answer. The 1.5B model often gets
the gist and drops the condition a reader needs ("사전 서면 승인", "법정이자", "통상의 사용으로
생긴 마모"), or writes only that nothing supports an answer: the article's own words carry it.
An article the question names by number counts as cited even when the answer cites another:
the small model sometimes writes the neighbouring article's content for "제십사조 보면 …".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from dure.agents.contract import prompts
from dure.agents.contract.context import collected_articles
from dure.agents.contract.rules import clear_top_hit, nouns, rule_sufficiency
from dure.agents.contract.state import ContractState
from dure.documents.contract import Contract
from dure.documents.refs import extract_article_refs
from dure.embeddings import Embedder, EmbeddingError
from dure.korean.figures import figures, unsupported
from dure.korean.particles import particle
from dure.quotes import says
from dure.retrieval.paragraphs import article_paragraphs
from dure.sources import Source, unique_sources

#: Words every contract question shares with every article: they show no bearing. The parties
#: are named in nearly every clause ("회사 그만두려면 …" shares 회사 with "회사는 … 14일 이내에
#: 금품을 지급한다").
_GENERIC = {
    *("조항", "조", "내용", "계약", "계약서", "경우", "얼마", "무엇", "뭐", "때"),
    *("갑", "을", "병", "회사", "근로자", "사용자", "임대인", "임차인", "도급인", "수급인"),
    *("발주자", "발주처", "위탁자", "수탁자", "매도인", "매수인", "사업자", "고객", "회원"),
}
_CLAUSE = re.compile(r"(?<=다\.)\s+|\n+")
MAX_QUOTES = 2
_LABEL = re.compile(r"^제\s*\d+\s*조(?:의\s*\d+)?(?:\s*\([^)]*\))?\s*")


def _nouns(text: str) -> set[str]:
    return nouns(text) - _GENERIC


def settled(
    state: ContractState, contract: Contract | None, margin: float | None, first: bool
) -> tuple[str, list[str]] | None:
    """Why what was collected suffices by rule, and the articles the answer then rests on
    (empty: all collected); None to ask the model. The articles the question named were all
    read (`rules.rule_sufficiency`: the answer rests on those named by number when they cover
    it — with more beside them, the small model sometimes wrote a neighbouring article's
    content); or, in the `first` round, the search ranked one article ahead of the next by
    `margin` (`rules.clear_top_hit`; None: off), or the question follows up the previous turn,
    which it is answered from with what this search found."""
    question, collected = state["user_message"], state.get("collected_info", [])
    reason = rule_sufficiency(question, state.get("explored_articles", []), contract)
    if reason is not None:
        return reason, named_focus(question, collected)
    if not first:
        return None
    if (lead := clear_top_hit(collected, margin)) is not None:
        return prompts.CLEAR_LEAD.format(article=particle(lead, "이", "가")), [lead]
    if state.get("need_previous_context"):
        return prompts.FOLLOW_UP_SEARCHED, []
    return None


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


def nearest_paragraph(
    question: str, answer: str, articles: Sequence[Source], embedder: Embedder
) -> tuple[Source, str] | None:
    """The paragraph of the contract `articles` nearest `question` (e5 cosine with the passage
    search embedded for it, so from the vector cache), without its article label; None when
    the answer already says it (`quotes.says`)."""
    owners: list[Source] = []
    lines: list[str] = []
    passages: list[str] = []
    for source in articles:
        if source.kind != "contract" or not source.article_no:
            continue
        for line, passage in article_paragraphs(
            source.article_no, source.article_title, source.text
        ):
            # The heading alone ("제5조의2 (선급금의 반환)") says nothing.
            if said := _LABEL.sub("", line):
                owners.append(source)
                lines.append(said)
                passages.append(passage)
    if not passages:
        return None
    sims = embedder.embed_documents(passages) @ embedder.embed_query(question)
    best = int(np.argmax(sims))
    return None if says(answer, lines[best]) else (owners[best], lines[best])


def missing_quotes(
    question: str,
    answer: str,
    cited: list[Source],
    named: Sequence[Source] = (),
    embedder: Embedder | None = None,
    each: bool = False,
    leading: Source | None = None,
) -> str:
    """The quote to append (empty when there is none): the paragraph nearest the question
    (given an `embedder`, `nearest_paragraph`) of the articles the answer rests on (named by
    the question or the answer; else the first of `cited`), then the cited articles'
    figure-bearing sentences the question needs and the answer lacks. `named`: the articles
    the question names by number (`rules.named_sources`), taken first even when the answer
    cites others.

    A sentence bears on the question when it shares a word with it; when none does ("개발이
    늦어지면 벌금 같은 거 물어야 돼?" asks about 제15조 in other words) and the answer or the
    question names the article but the answer holds none of its figures, its first
    figure-bearing sentences stand in. `each`: the nearest paragraph of every article the answer
    rests on (an answer that only names the articles), not of the nearest one alone.
    `leading`: the article the search ranked first; when the question names none and the answer
    rests on others, its nearest paragraph is quoted too (the 1.5B model answered "월세 얼마까지
    올릴 수 있어?" with 제4조's rent, the search having ranked 제5조, the rent's increase, first)."""
    articles = unique_sources([*named, *cited])
    # The articles the answer rests on: named or cited by it; else the best-matching one.
    resting = [s for s in articles if s in named or (s.article_no and s.article_no in answer)]
    groups = [[s] for s in resting] if each else [resting or articles[:1]]
    if leading is not None and not named and resting and leading not in resting:
        groups.append([leading])
    near: list[tuple[Source, str]] = []
    if embedder is not None:
        try:
            near = [n for g in groups if (n := nearest_paragraph(question, answer, g, embedder))]
        except EmbeddingError:  # a remote embedder that cannot be reached: figures only
            near = []
    quotes = [f"{source.article_no}: “{line}”" for source, line in near]
    said = answer + "".join(line for _, line in near)
    asked = _nouns(question)
    for source in articles:
        if source.kind != "contract" or not source.article_no:
            continue
        clauses = [c.strip() for c in _CLAUSE.split(source.text) if c.strip() and figures(c)]
        bearing = [c for c in clauses if asked & _nouns(c)]
        rests_on = source.article_no in answer or source in named
        if rests_on and not bearing and not any(not unsupported(c, [answer]) for c in clauses):
            bearing = clauses  # the answer rests on the article but gave none of its figures
        quotes += [f"{source.article_no}: “{c}”" for c in bearing if unsupported(c, [said])]
    if not quotes:
        return ""
    return "\n\n조항 원문 — " + "\n".join(quotes[:MAX_QUOTES])
