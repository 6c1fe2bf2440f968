"""Statute-style Korean contracts as data: articles with number, title, paragraphs and items.

`parse_contract(text, doc_id)` reads the forms Korean contracts are written in — `제5조 (목적)`,
`제5조(목적)`, `제 5 조`, `제5조의2`, chapter lines (`제1장 총칙`), a preamble, 부칙, 별표/별첨
and the signature block — and resolves cross-references ("제7조에 따른", "전조", "이 조 제2항",
"제3조부터 제5조까지").
The contract agent looks articles up by number (`find_by_number`) and by title
(`find_by_title`); explicit numbers never go through search.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any

from rapidfuzz import fuzz

from dure.documents.refs import (
    ArticleNumber,
    article_mentions,
    extract_article_refs,
    find_article_numbers,
    format_article_no,
)

__all__ = [
    "Appendix",
    "Article",
    "Contract",
    "Item",
    "Paragraph",
    "extract_article_refs",
    "parse_contract",
]

_CIRCLED = "①②③④⑤⑥⑦⑧⑨⑩⑪⑫⑬⑭⑮⑯⑰⑱⑲⑳"


@dataclass
class Item:
    """A numbered item (`1.`, `2)`, `가.`) inside an article or a paragraph."""

    label: str
    text: str
    paragraph: int | None = None


@dataclass
class Paragraph:
    """A paragraph (항) marked ①, ②, …; `number` 2 is ②."""

    number: int
    text: str
    items: list[Item] = field(default_factory=list)


@dataclass
class Article:
    """One article (조).

    `no` is the canonical label (`제5조`, `제5조의2`), `number`/`sub` its parts, `text` the
    whole article as written (heading included), `references` the other articles it cites
    (canonical labels, in order; "전조" resolved to the previous article, "이 조" dropped).
    """

    no: str
    number: int
    sub: int | None
    title: str | None
    paragraphs: list[Paragraph]
    items: list[Item]
    text: str
    references: list[str] = field(default_factory=list)
    chapter: str | None = None
    supplementary: bool = False

    @property
    def heading(self) -> str:
        """`제5조 (목적)` — how the article is cited."""
        return f"{self.no} ({self.title})" if self.title else self.no

    @property
    def body(self) -> str:
        """The article's text without its heading line."""
        return self.text.split("\n", 1)[1].strip() if "\n" in self.text else ""


@dataclass
class Appendix:
    """An attachment after the articles: 별표 1, 별첨, 별지 제1호 서식, 첨부."""

    label: str
    title: str | None
    text: str


@dataclass
class Contract:
    """A parsed contract: preamble, articles (본문), 부칙 articles, appendices, signature."""

    doc_id: str
    title: str | None
    preamble: str
    articles: list[Article]
    appendices: list[Appendix] = field(default_factory=list)
    signature: str | None = None
    supplementary: list[Article] = field(default_factory=list)

    def get(self, no: str) -> Article | None:
        """The main-body article whose canonical label is `no` (e.g. `제5조의2`)."""
        return next((a for a in self.articles if a.no == no), None)

    def find_by_number(self, user_text: str) -> Article | None:
        """The article a user names by number: "제5조", "5조", "제 5 조", "5번째 조항", "제5조의2".

        Only the first number in the text counts; None when the contract has no such article.
        """
        refs = find_article_numbers(user_text)
        return self.get(refs[0].label) if refs else None

    def find_by_title(
        self, query: str, limit: int = 3, min_score: float = 0.6
    ) -> list[tuple[Article, float]]:
        """Articles whose title matches `query`, best first, with a score in [0, 1].

        Fuzzy (spacing, "의", "조항/관련/규정" are ignored), but one different syllable in the
        key term is decisive: "계약의 해제" does not return 계약의 해지 when 계약의 해제 exists.
        """
        q = _title_key(query)
        if not q:
            return []
        scored: list[tuple[Article, float]] = []
        for art in self.articles:
            if not art.title:
                continue
            t = _title_key(art.title)
            if q == t:
                score = 1.0
            elif t in q or q in t:
                # One contains the other ("해지" in "계약해지"): strong, more so when close in length.
                score = 0.75 + 0.2 * min(len(q), len(t)) / max(len(q), len(t))
            else:
                score = fuzz.ratio(q, t) / 100
            if score >= min_score:
                scored.append((art, round(score, 4)))
        scored.sort(key=lambda p: -p[1])
        if scored and scored[0][1] >= 0.95:
            # An exact title wins outright; its near-spellings are different articles.
            scored = [p for p in scored if p[1] >= 0.95]
        return scored[:limit]

    def to_dict(self) -> dict[str, Any]:
        """Plain data (JSON-ready)."""
        return asdict(self)


_TITLE_NOISE = re.compile(
    r"(?:에\s*관한|에\s*대한|관련|조항|규정|내용|사항|조문|은|는|이|가|을|를)$"
)


def _title_key(text: str) -> str:
    """A title reduced to what distinguishes it: no spaces, brackets, particles or "조항"."""
    s = re.sub(r"[\s()\[\]【】<>「」\"'?!.·,]", "", text)
    s = s.replace("의", "")
    for _ in range(3):
        s2 = _TITLE_NOISE.sub("", s)
        if s2 == s:
            break
        s = s2
    return s


# ---------------------------------------------------------------- parsing

_MD = r"[#>*_\s]*"
_ARTICLE = re.compile(
    rf"^{_MD}제\s*(\d{{1,4}})\s*조(?:\s*의\s*(\d{{1,2}}))?\s*"
    r"(?:[(\[【<（]\s*([^)\]】>）]{1,40}?)\s*[)\]】>）]|(?=$)|(?=[*_]))"
    r"[*_\s]*(.*)$"
)
#: "제5조 목적" without brackets: accepted only when the rest is a short title, not a sentence.
_ARTICLE_PLAIN = re.compile(
    rf"^{_MD}제\s*(\d{{1,4}})\s*조(?:\s*의\s*(\d{{1,2}}))?\s+([^\s].{{0,24}})$"
)
_CHAPTER = re.compile(rf"^{_MD}(제\s*\d+\s*[장절관편])\s*(.*?)[*_\s]*$")
_SUPPLEMENT = re.compile(rf"^{_MD}부\s*칙(?:\s*[<(\[].*[>)\]])?[*_\s]*$")
_APPENDIX = re.compile(
    rf"^{_MD}[\[【<]?\s*((?:별표|별첨|별지|첨부|부속서)\s*(?:제?\s*\d+\s*호?)?)\s*(?:서식)?[\]】>]?\s*(.*?)[*_\s]*$"
)
_SIGNATURE = re.compile(
    r"^\s*(?:(?:19|20)\d{2}\s*[년.\-/]|\s*년\s+월\s+일|.*성립을\s*증명|.*서명\s*(?:또는|및|·|,)?\s*날인\s*(?:한|하여)\s*후)"
)
_PARAGRAPH = re.compile(rf"^\s*([{_CIRCLED}])\s*(.*)$")
_ITEM = re.compile(r"^\s*(\d{1,2}|[가-하])\s*[.)]\s+(.*)$")
_SENTENCE_END = re.compile(r"(?:다|함|음|것)\s*[.]?$")


def _article_heading(
    line: str, last: ArticleNumber | None
) -> tuple[ArticleNumber, str | None, str] | None:
    """(number, title, rest of the line) when `line` starts an article, else None."""
    m = _ARTICLE.match(line)
    title: str | None
    if m:
        num = ArticleNumber(int(m.group(1)), int(m.group(2)) if m.group(2) else None)
        title, rest = (m.group(3) or None), m.group(4).strip()
    else:
        m = _ARTICLE_PLAIN.match(line)
        if (
            not m
            or _SENTENCE_END.search(m.group(3))
            or re.match(r"^(?:제\s*\d|에|의|및|에서|부터)", m.group(3))
        ):
            return None
        num = ArticleNumber(int(m.group(1)), int(m.group(2)) if m.group(2) else None)
        title, rest = m.group(3).strip(" *_"), ""
    # Numbering moves forward; a line that would go backwards is a reference, not a heading.
    if last is not None and num.key <= last.key:
        return None
    return num, title, rest


def parse_contract(text: str, doc_id: str, title: str | None = None) -> Contract:
    """Parse a statute-style Korean contract into articles (see the module docstring).

    A text without any article heading gives a `Contract` with no articles and the whole
    text as its preamble; the caller decides whether to treat it as an ordinary document.
    """
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    preamble: list[str] = []
    doc_title = title
    articles: list[Article] = []
    supplementary: list[Article] = []
    appendices: list[tuple[str, str | None, list[str]]] = []
    signature: list[str] = []
    current: list[str] | None = None
    heads: list[tuple[ArticleNumber, str | None, str | None, bool, list[str]]] = []
    chapter: str | None = None
    in_supplement = False
    mode = "preamble"  # preamble | article | signature | appendix
    last: ArticleNumber | None = None

    for raw in lines:
        line = raw.rstrip()
        if mode != "appendix":
            head = _article_heading(line, last if not in_supplement else _last_sup(heads))
        else:
            head = None
        if head and mode in ("preamble", "article", "signature"):
            if mode == "signature" and current is not None:
                # A dated line inside an article (a flattened table cell, "2025년 9월 30일")
                # looked like the signature block; another article proves it was not.
                current.extend(signature)
                signature = []
            num, art_title, rest = head
            last = num if not in_supplement else last
            current = [_strip_md(line)]
            heads.append((num, art_title, chapter, in_supplement, current))
            mode = "article"
            continue
        if mode != "appendix" and (m := _CHAPTER.match(line)) and mode in ("preamble", "article"):
            chapter = f"{_squash(m.group(1))} {m.group(2)}".strip()
            current = None if mode == "article" else current
            continue
        if mode in ("preamble", "article") and _SUPPLEMENT.match(line):
            in_supplement, current, mode = True, None, "article"
            continue
        if (m := _APPENDIX.match(line)) and mode != "preamble" and _is_appendix_head(line):
            appendices.append((_squash(m.group(1)), m.group(2) or None, []))
            mode = "appendix"
            continue
        if mode == "article" and _SIGNATURE.match(line) and not _PARAGRAPH.match(line):
            mode = "signature"
        if mode == "preamble":
            if doc_title is None and not preamble and line.strip():
                stripped = _strip_md(line)
                if len(stripped) <= 40 and not _SENTENCE_END.search(stripped):
                    doc_title = stripped
                    continue
            preamble.append(line)
        elif mode == "article" and current is not None:
            current.append(line)
        elif mode == "signature":
            signature.append(line)
        elif mode == "appendix":
            appendices[-1][2].append(line)

    built: list[Article] = []
    for num, art_title, chap, sup, body in heads:
        built.append(_build_article(num, art_title, chap, sup, body))
    for art in built:
        (supplementary if art.supplementary else articles).append(art)
    _resolve_references(articles)
    _resolve_references(supplementary)
    return Contract(
        doc_id=doc_id,
        title=doc_title,
        preamble="\n".join(preamble).strip(),
        articles=articles,
        appendices=[Appendix(label, t, "\n".join(body).strip()) for label, t, body in appendices],
        signature="\n".join(signature).strip() or None,
        supplementary=supplementary,
    )


def _last_sup(
    heads: list[tuple[ArticleNumber, str | None, str | None, bool, list[str]]],
) -> ArticleNumber | None:
    sup = [h[0] for h in heads if h[3]]
    return sup[-1] if sup else None


def _is_appendix_head(line: str) -> bool:
    """An appendix heading stands alone; "별첨 1의 기준에 따라 …" is a sentence that cites one."""
    s = _strip_md(line)
    return (
        len(s) <= 60 and not _SENTENCE_END.search(s) and not re.search(r"(?:에|의|과|와)\s", s[:12])
    )


def _strip_md(line: str) -> str:
    return re.sub(r"^[#>\s]+", "", line).replace("**", "").replace("__", "").strip()


def _squash(s: str) -> str:
    return re.sub(r"\s+", "", s)


def _build_article(
    num: ArticleNumber,
    title: str | None,
    chapter: str | None,
    supplementary: bool,
    lines: list[str],
) -> Article:
    heading, *rest = lines
    m = _ARTICLE.match(heading)
    inline = m.group(4).strip() if m else ""
    body_lines = ([inline] if inline else []) + [ln.strip() for ln in rest]
    while body_lines and not body_lines[-1]:
        body_lines.pop()
    paragraphs: list[Paragraph] = []
    items: list[Item] = []
    for ln in body_lines:
        if not ln:
            continue
        if pm := _PARAGRAPH.match(ln):
            paragraphs.append(Paragraph(_CIRCLED.index(pm.group(1)) + 1, pm.group(2).strip()))
        elif im := _ITEM.match(ln):
            item = Item(
                im.group(1), im.group(2).strip(), paragraphs[-1].number if paragraphs else None
            )
            items.append(item)
            if paragraphs:
                paragraphs[-1].items.append(item)
        elif paragraphs:
            paragraphs[-1].text = f"{paragraphs[-1].text} {ln}".strip()
    head = format_article_no(num.number, num.sub) + (f" ({title})" if title else "")
    text = "\n".join([head, *[b for b in body_lines if b]])
    return Article(
        no=num.label,
        number=num.number,
        sub=num.sub,
        title=title.strip() if title else None,
        paragraphs=paragraphs,
        items=items,
        text=text,
        chapter=chapter,
        supplementary=supplementary,
    )


_PREV = re.compile(r"전\s*조|앞\s*조")
_NEXT = re.compile(r"다음\s*조|차\s*조")


def _resolve_references(articles: list[Article]) -> None:
    """Fill `references`: explicit numbers, "전조"/"다음 조" resolved, self-references dropped.

    "이 조 제2항" and "같은 조" name no new article (paragraph numbers are not articles), so
    they add nothing; "제7조에 따른" adds 제7조, and a range ("제287조부터 제289조까지") every
    article from one end to the other.
    """
    where = {art.no: i for i, art in enumerate(articles)}
    for i, art in enumerate(articles):
        body = art.body
        found = [
            (pos, no)
            for pos, first, last in article_mentions(body)
            for no in _through(articles, where, first.label, last.label)
        ]
        if i > 0:
            found += [(m.start(), articles[i - 1].no) for m in _PREV.finditer(body)]
        if i + 1 < len(articles):
            found += [(m.start(), articles[i + 1].no) for m in _NEXT.finditer(body)]
        refs: list[str] = []
        for _, no in sorted(found):
            if no != art.no and no not in refs:
                refs.append(no)
        art.references = refs


#: The longest range of articles read as a range: a longer one ("제1조부터 제900조까지") is a
#: whole part of a code, not a cross-reference to explore (the contract agent lists the articles
#: an answer cites but has not read in its prompts), so its two ends alone are kept.
MAX_THROUGH = 20


def _through(articles: list[Article], where: dict[str, int], first: str, last: str) -> list[str]:
    """The labels from article `first` to `last` in the document's order ("제329조 내지 제341조"
    takes in 제331조의2; `where`: each label's place), or the two ends when either is missing or
    the range is too long."""
    if first == last:
        return [first]
    start, end = where.get(first), where.get(last)
    if start is None or end is None or not 0 < end - start <= MAX_THROUGH:
        return [first, last]
    return [art.no for art in articles[start : end + 1]]
