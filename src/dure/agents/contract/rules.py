"""The contract agent's rule-based decisions (no LLM): tool suggestions, sufficiency, citations.

- `suggest_tools`: the first-iteration suggestion (docs/agents/contract.md): an article
  number → `get_article_by_index`, an article title in the question → `get_article_by_title`,
  "표준"/"표준계약서" → `lookup_standard_contract`; a question naming none of these (and not
  leaning on the previous turn) → `hybrid_search` of the question as asked.
- `first_round`: the first round's calls, all by rule: the suggestion, plus a search of the
  question when it is not a pure lookup.
- `is_pure_lookup`: the question asks for nothing beyond what the suggestions fetch ("제5조
  내용이 뭐야?").
- `rule_sufficiency`: the question named specific articles (by number or title) and exactly
  those were retrieved; `clear_top_hit`: the search ranked one article clearly first.
- `named_sources`, `cited_sources`: the retrieved articles the question names, and those an
  answer cites, by number.
"""

from __future__ import annotations

import re
from typing import Any

from dure import honest
from dure.agents.contract.state import ToolCall
from dure.agents.contract.tools import (
    GET_ARTICLE_BY_INDEX,
    GET_ARTICLE_BY_TITLE,
    HYBRID_SEARCH,
    LOOKUP_STANDARD_CONTRACT,
    STANDARD_LABEL,
    article_label,
)
from dure.documents.contract import Contract
from dure.documents.refs import extract_article_refs, find_article_numbers
from dure.retrieval.tokenize import tagged as morphemes
from dure.sources import Source, unique_sources
from dure.tools import signature

#: Words that only say "show me / explain": they ask for nothing beyond the article itself.
_LOOKUP_WORDS = {
    "내용", "뭐", "무엇", "알리", "보이", "보여주", "보", "설명", "조항", "조문", "조", "항",
    "호", "전문", "원문", "요약", "정리", "확인", "말", "주", "있", "되", "하", "의미", "뜻",
    "궁금", "전체", "읽", "나오", "적히", "쓰이", "어떻", "다시",
}  # fmt: skip
#: Words a standard-contract lookup covers ("제5조를 표준계약서와 비교해줘").
_STANDARD_WORDS = {"표준", "계약서", "표준계약서", "비교", "차이", "다르", "대비"}
_CONTENT_TAGS = ("NNG", "NNP", "VV", "VA", "XR", "SL", "SH")
_TITLE_NOISE = re.compile(r"[\s()\[\]「」\"'·,.의및]")
_MAX_TITLE_SUGGESTIONS = 2
#: A question this short (characters, spaces removed) may be a title on its own.
_SHORT_QUESTION = 16


def _squash(text: str) -> str:
    return _TITLE_NOISE.sub("", text)


def _call(name: str, args: dict[str, Any]) -> ToolCall:
    return {"name": name, "args": args, "signature": signature(name, args), "origin": "rule"}


def wants_standard(question: str) -> bool:
    """The question mentions the standard contract ("표준", "표준계약서")."""
    return "표준" in question


def nouns(text: str) -> set[str]:
    """The common and proper nouns of `text` (Kiwi)."""
    return {form for form, tag in morphemes(text) if tag.startswith(("NNG", "NNP"))}


def title_matches(question: str, contract: Contract) -> list[str]:
    """Titles of the articles a question names by title.

    A title written out in the question counts (spacing and "의" ignored); failing that, a
    short question that is itself close to one title ("전대 제한" → "전대 및 양도의 제한").
    """
    q = _squash(question)
    found = [
        a.title
        for a in contract.articles
        if a.title and len(_squash(a.title)) >= 2 and _squash(a.title) in q
    ]
    if not found and len(q) <= _SHORT_QUESTION:
        # Close in spelling is not enough ("정리" is not "정의"): a word of the title is there.
        words = nouns(question)
        close = contract.find_by_title(question, limit=1, min_score=0.7)
        found = [a.title for a, _ in close if a.title and nouns(a.title) & words]
    # Longer titles are more specific ("계약의 해지" beats "계약"); keep the best few.
    return sorted(dict.fromkeys(found), key=lambda t: -len(_squash(t)))[:_MAX_TITLE_SUGGESTIONS]


def suggest_tools(
    question: str, contract: Contract | None, search_fallback: bool = False
) -> list[ToolCall]:
    """The rule-based suggestion for the first iteration (may be empty).

    With `search_fallback`, a question that names no article, title or standard contract is
    searched as asked (`hybrid_search`); the planner's model may add rewritten queries.
    """
    refs = extract_article_refs(question)
    calls = [_call(GET_ARTICLE_BY_INDEX, {"article_no": ref}) for ref in refs]
    if contract is not None and not refs:
        calls += [
            _call(GET_ARTICLE_BY_TITLE, {"title": t}) for t in title_matches(question, contract)
        ]
    if wants_standard(question):
        # The standard contract numbers its articles differently: look it up by topic.
        topics = [a.title for r in refs if contract and (a := contract.get(r)) and a.title]
        query = " ".join([*topics, question]) if topics else question
        calls.append(_call(LOOKUP_STANDARD_CONTRACT, {"query": query}))
    if search_fallback and not calls:
        # Measured on the dev set: a small model's own first pick often misses the article
        # that plain search ranks in its top 3, so the question itself is always searched.
        calls.append(_call(HYBRID_SEARCH, {"query": question}))
    return calls


def first_round(question: str, contract: Contract | None, following: bool) -> list[ToolCall]:
    """The first round's calls, decided without a model: the suggestion, plus a search of the
    question as asked when it asks more than the named articles hold ("제5조에 따른 위약금은
    얼마야?"). A follow-up gets only what it names (possibly nothing)."""
    calls = suggest_tools(question, contract, search_fallback=not following)
    searched = any(c["name"] == HYBRID_SEARCH for c in calls)
    if calls and not following and not searched and not is_pure_lookup(question, contract, calls):
        calls.append(_call(HYBRID_SEARCH, {"query": question}))
    return calls


def is_pure_lookup(question: str, contract: Contract | None, suggestions: list[ToolCall]) -> bool:
    """The suggestions fetch everything the question asks for: no planner model call needed."""
    if not suggestions:
        return False
    covered = set(_LOOKUP_WORDS)
    if any(s["name"] == LOOKUP_STANDARD_CONTRACT for s in suggestions):
        covered |= _STANDARD_WORDS
    for s in suggestions:
        if s["name"] == GET_ARTICLE_BY_TITLE:
            covered |= {form for form, _ in morphemes(s["args"]["title"])}
    for form, tag in morphemes(question):
        if tag.startswith(_CONTENT_TAGS) and form not in covered:
            return False
    return True


def rule_sufficiency(
    question: str, explored_articles: list[str], contract: Contract | None = None
) -> str | None:
    """Why the collected information is sufficient by rule, or None to ask the model.

    Sufficient when the question named specific articles — by number, or else by title — and
    all of them were retrieved from the user's contract (plus the standard contract's, when
    it was asked for); a search of the question may have added others.
    """
    requested = extract_article_refs(question)
    named = "질문이 번호로 지정한 조항"
    if not requested and contract is not None:
        titles = set(title_matches(question, contract))
        requested = [a.no for a in contract.articles if a.title in titles]
        named = f"질문에 나온 제목({', '.join(sorted(titles))})의 조항"
    if not requested:
        return None
    contract_articles = {a for a in explored_articles if not a.startswith(STANDARD_LABEL)}
    if not {article_label("contract", r) for r in requested} <= contract_articles:
        return None
    if wants_standard(question) and not any(
        a.startswith(STANDARD_LABEL) for a in explored_articles
    ):
        return None
    return f"{named}({', '.join(requested)})을 모두 조회했습니다."


def first_search_call(collected_info: list[dict[str, Any]]) -> dict[str, Any] | None:
    """What the first hybrid search of the user's contract collected, if one succeeded."""
    return next((i for i in collected_info if i.get("tool") == HYBRID_SEARCH and i.get("ok")), None)


def first_search(collected_info: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The contract articles of the first hybrid search of the user's contract, best first."""
    info = first_search_call(collected_info) or {"sources": []}
    return [s for s in info.get("sources", []) if s.get("kind") == "contract" and s.get("score")]


def _too_close(ranked: list[dict[str, Any]], margin: float) -> bool:
    return ranked[0]["score"] - ranked[1]["score"] < margin


def clear_top_hit(collected_info: list[dict[str, Any]], margin: float | None) -> str | None:
    """The article that settled the question, or None: a hybrid search of the user's contract
    ranked it ahead of the next by at least `margin` (z-score fusion units; None turns the rule
    off)."""
    ranked = first_search(collected_info)
    if margin is None or len(ranked) < 2 or _too_close(ranked, margin):
        return None
    return str(ranked[0]["article_no"])


def leading_articles(collected_info: list[dict[str, Any]], margin: float | None) -> list[str]:
    """The article the first hybrid search ranked first, and the next one too when it is within
    `margin` of it (too close to call): what an answer with no supported sentence quotes."""
    ranked = first_search(collected_info)
    close = margin is not None and len(ranked) > 1 and _too_close(ranked, margin)
    return [str(r["article_no"]) for r in ranked[: 2 if close else 1]]


def retrieved_sources(collected_info: list[dict[str, Any]]) -> list[Source]:
    """Every source the tools returned this turn, in order, without repeats."""
    return unique_sources(
        [
            Source.model_validate(s)
            for info in collected_info
            if info.get("ok")
            for s in info["sources"]
        ]
    )


def leading_source(collected_info: list[dict[str, Any]], retrieved: list[Source]) -> Source | None:
    """The retrieved article of the user's contract that the first hybrid search ranked first."""
    ranked = first_search(collected_info)
    top = ranked[0]["article_no"] if ranked else None
    return next((s for s in retrieved if s.kind == "contract" and s.article_no == top), None)


def named_sources(question: str, retrieved: list[Source]) -> list[Source]:
    """The retrieved articles of the user's contract that the question names by number."""
    refs = set(extract_article_refs(question))
    return [s for s in retrieved if s.kind == "contract" and s.article_no in refs]


def cited_sources(answer: str, collected_info: list[dict[str, Any]]) -> list[Source]:
    """The retrieved articles the answer cites by number; if it cites none, those whose words it
    has (`honest.cited`: an English answer that named no article listed all three searched).

    The same number may exist in both documents: a number the answer only ever mentions right
    after "표준" ("표준계약서 제5조") does not cite the user's contract's article of that number.
    """
    retrieved = retrieved_sources(collected_info)
    plain: set[str] = set()
    after_standard: set[str] = set()
    for m in re.finditer(r"제\s*\d+\s*조(?:\s*의\s*\d+)?", answer):
        ref = find_article_numbers(m.group(0))[0].label
        before = answer[max(0, m.start() - 12) : m.start()]
        (after_standard if "표준" in before else plain).add(ref)
    cited = [
        s
        for s in retrieved
        if s.article_no
        and (s.article_no in plain or (s.kind == "standard" and s.article_no in after_standard))
    ]
    return cited or honest.cited(answer, retrieved)
