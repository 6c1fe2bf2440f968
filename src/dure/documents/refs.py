"""Article numbers as people write them: "제5조", "5조", "제 5 조", "제5조의2", "제십오조",
"5번째 조항", "열다섯 번째 조항".

One place knows how to read an article number out of text, so the parser (cross-references
inside a contract) and the agents (a user's question) agree on what "제5조" means.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from dure.korean.numbers import (
    NATIVE_ORDINALS,
    SINO_DIGITS,
    SINO_NUMERAL,
    alternation,
    sino_korean_number,
)

#: An article label anywhere in a sentence: 제5조, 제 5 조, 제5조의2, 제5조 의 2.
_FORMAL = re.compile(r"제\s*(\d{1,4})\s*조(?:\s*의\s*(\d{1,2}))?")
#: A bare "5조" / "5조의2" / "8조 2항" in a question; "5조 원" and "1조 2000억" (trillions of
#: won) are money, not articles.
_BARE = re.compile(
    r"(?<![\d제,.])(\d{1,4})\s*조(?:\s*의\s*(\d{1,2}))?"
    r"(?!\s*(?:원|달러|억|만|개|\d+(?!\d)(?!\s*항)))"
)
#: "5번째 조항", "5번 조항", "5번째 조", "조항 5번".
_ORDINAL = re.compile(r"(\d{1,4})\s*번(?:째)?\s*조(?:항)?|조항\s*(\d{1,4})\s*번")

#: What may follow "조" so that "제일 조건" (the best terms) is not read as 제1조.
_AFTER_JO = r"(?=$|[^\w]|[은는이가을를에와과도만항부까로의랑])"
_DIGITS = "".join(SINO_DIGITS)
#: "의2" / "의이" after a Sino-Korean article number.
_SINO_SUB = rf"(?:\s*의\s*(\d{{1,2}}|[{_DIGITS}]))?"
#: Sino-Korean numerals: 제십오조, 제 이십일 조, 제백삼조의이.
_SINO_FORMAL = re.compile(rf"제\s*({SINO_NUMERAL})\s*조{_SINO_SUB}{_AFTER_JO}")
#: A bare Sino-Korean number of two syllables or more with a 십 or 백 in it (십사조, 이십일조,
#: 백삼조), or 십조. Another one syllable is a word too often ("구조", "사조", "백조", "일조"), and
#: "십오조 원" is money.
_SINO_BARE = re.compile(
    rf"(?<![가-힣\d])((?=[{_DIGITS}백십]*[백십])[{_DIGITS}백십]{{2,}}|십)\s*조{_SINO_SUB}{_AFTER_JO}"
    r"(?!\s*(?:원|달러|억|만|개|규모|어치))"
)
#: One syllable alone as the whole question, with any particle ("오조", "칠조는?", "육조엔",
#: "삼조 보여줘"): 삼 to 팔 only, since "일조" (sunlight), "이 조" (this article) and "구조"
#: (structure) are words of their own.
_SINO_ALONE = re.compile(
    r"^\s*([삼사오육칠팔])\s*조(?:항)?\s*"
    r"(?:[은는이가을를도만]|에서는|에서|에선|에는|엔|에|이랑|랑|하고|와|과)?"
    r"(?:\s*(?:내용|원문|좀|뭐|뭔데|뭐야|뭐임|뭐예요|알려|보여|설명|읽어|말해|나와|나오|적혀|써|어떻게)\S*)*\s*[?？!.~]*\s*$"
)
#: Native ordinals: 열다섯 번째 조항, 스물한 번째 조, 첫째 조항.
_NATIVE_ORDINAL = re.compile(
    rf"({alternation(NATIVE_ORDINALS)})\s*(?:번\s*째|째|(?<=째))\s*조(?:항)?"  # 둘째 조항 too
)
#: In English: "article 5", "Article 12", "art. 3".
_ENGLISH = re.compile(r"(?i)(?<![A-Za-z])(?:article|art\.)\s*(\d{1,4})(?!\d)")


@dataclass(frozen=True)
class ArticleNumber:
    """An article's number: `number` 5 and `sub` 2 for 제5조의2."""

    number: int
    sub: int | None = None

    @property
    def key(self) -> tuple[int, int]:
        """Sort key: 제5조 < 제5조의2 < 제6조."""
        return (self.number, self.sub or 0)

    @property
    def label(self) -> str:
        """The canonical label, e.g. `제5조` or `제5조의2`."""
        return format_article_no(self.number, self.sub)


def format_article_no(number: int, sub: int | None = None) -> str:
    """`제5조` or `제5조의2`."""
    return f"제{number}조" + (f"의{sub}" if sub else "")


#: Not an article after a number: money and counts ("3, 5조 원", "1~2조 달러").
_NOT_ARTICLE = r"(?!\s*(?:원|달러|억|만|개|규모|어치))"
#: What joins the two ends of a range of articles: "~", "부터", "내지".
_THROUGH_WORDS = r"~|∼|〜|-|–|부터|내지"
#: A range a question asks about: "제3조~제5조", "3~5조", "3조부터 5조까지", "제3조 내지 제5조",
#: "3조에서 5조까지" — every article between, at most `MAX_RANGE` of them.
_RANGE = re.compile(
    r"(?<![\d.,의])(?<!의\s)(?:제\s*)?(\d{1,4})\s*(?:조\s*)?"
    rf"(?:{_THROUGH_WORDS}|에서(?=\s*(?:제\s*)?\d{{1,4}}\s*조\s*까지))"
    rf"\s*(?:제\s*)?(\d{{1,4}})\s*조{_NOT_ARTICLE}"
)
MAX_RANGE = 10
#: Numbers listed before one "조": "3, 5조", "제3·5조", "3이랑 5조", "2, 4, 7조".
_LIST = re.compile(
    r"(?<![\d.,의])(?<!의\s)(?:제\s*)?(\d{1,4})"
    r"((?:\s*(?:,|·|ㆍ|/|및|와|과|이랑|랑|하고)\s*(?:제\s*)?\d{1,4})+)"
    rf"\s*조{_NOT_ARTICLE}"
)


def find_article_numbers(text: str) -> list[ArticleNumber]:
    """Every article number a user or a contract mentions, in order of appearance, unique.

    Reads the formal form (제5조, 제 5 조, 제5조의2), Sino-Korean numerals (제십오조, 십사조, and
    "오조" when it is the whole question), the bare
    form (5조, 5조의2, but not "5조 원"), ordinals (5번째 조항, 5번 조항, 열다섯 번째 조항, 둘째 조항)
    and English ("article 5").
    """
    return list(dict.fromkeys(ref for _, ref in _mentioned(text)))


def _mentioned(text: str) -> list[tuple[int, ArticleNumber]]:
    """(offset, number) of every article number `find_article_numbers` reads, in order."""
    found: list[tuple[int, ArticleNumber]] = []
    taken: list[tuple[int, int]] = []

    def add(m: re.Match[str], number: int, sub: int | None) -> None:
        if any(s < m.end() and m.start() < e for s, e in taken):
            return
        taken.append((m.start(), m.end()))
        found.append((m.start(), ArticleNumber(number, sub)))

    for m in _FORMAL.finditer(text):
        add(m, int(m.group(1)), int(m.group(2)) if m.group(2) else None)
    for m in _ORDINAL.finditer(text):
        add(m, int(m.group(1) or m.group(2)), None)
    for m in [
        *_SINO_FORMAL.finditer(text),
        *_SINO_BARE.finditer(text),
        *_SINO_ALONE.finditer(text),
    ]:
        number = sino_korean_number(m.group(1))
        sub = m.group(2) if m.re.groups > 1 else None
        if number is not None:
            add(m, number, int(sub) if sub and sub.isdigit() else sino_korean_number(sub or ""))
    for m in _NATIVE_ORDINAL.finditer(text):
        add(m, NATIVE_ORDINALS[m.group(1)], None)
    for m in _ENGLISH.finditer(text):
        add(m, int(m.group(1)), None)
    for m in _BARE.finditer(text):
        add(m, int(m.group(1)), int(m.group(2)) if m.group(2) else None)
    return sorted(((at, ref) for at, ref in found if ref.number > 0), key=lambda p: p[0])


#: A range of articles in a legal text: "제287조부터 제289조까지", "제329조 내지 제341조".
_THROUGH = re.compile(rf"\s*(?:{_THROUGH_WORDS})\s*")


def article_mentions(text: str) -> list[tuple[int, ArticleNumber, ArticleNumber]]:
    """(offset, first, last) of every formal mention (제5조, 제 5 조, 제5조의2) in a legal text: a
    range ("제287조부터 제289조까지", "제329조 내지 제341조") is one mention from its first to its
    last article; a single article is its own first and last."""
    found = list(_FORMAL.finditer(text))
    numbers = [ArticleNumber(int(m[1]), int(m[2]) if m[2] else None) for m in found]
    out: list[tuple[int, ArticleNumber, ArticleNumber]] = []
    i = 0
    while i < len(found):
        ranged = i + 1 < len(found) and _THROUGH.fullmatch(
            text, found[i].end(), found[i + 1].start()
        )
        last = i + 1 if ranged else i
        out.append((found[i].start(), numbers[i], numbers[last]))
        i = last + 1
    return out


def _listed(question: str) -> list[tuple[int, ArticleNumber]]:
    """(offset, number) of each article of a range or a list sharing one "조" in a question."""
    out: list[tuple[int, ArticleNumber]] = []
    for m in _RANGE.finditer(question):
        first, last = int(m.group(1)), int(m.group(2))
        if 0 < first < last <= first + MAX_RANGE:
            out += [(m.start(), ArticleNumber(n)) for n in range(first, last + 1)]
    for m in _LIST.finditer(question):
        numbers = [int(m.group(1)), *map(int, re.findall(r"\d{1,4}", m.group(2)))]
        out += [(m.start(), ArticleNumber(n)) for n in numbers if n > 0]
    return out


def extract_article_refs(question: str) -> list[str]:
    """Article labels (`제5조`, `제5조의2`) a user's question names explicitly, in order;
    a range ("제3조~제5조", "3조부터 5조까지") or a list before one "조" ("3, 5조") names
    each of its articles.

    These are exact: resolve them with `Contract.find_by_number`, not with search.
    """
    # A stable sort: a range's articles stay in order at the range's offset.
    found = sorted([*_listed(question), *_mentioned(question)], key=lambda p: p[0])
    return [ref.label for ref in dict.fromkeys(ref for _, ref in found)]
