"""A PDF's page texts as the paragraphs a person reads.

A PDF holds lines placed on pages, not paragraphs. Extracted as they are, a printed contract
(a browser's or a word processor's "PDF로 저장") carries two kinds of noise into search, quotes
and the figure checks of answers:

- **Running lines**: a header or footer repeated on every page ("물류관리시스템 유지보수 계약서",
  "- 2 -", "file:///… 1/3") lands inside whichever article crosses the page break.
- **Wrapped lines**: a line ends where the page does, often inside a word: "4시\\n간 이내에",
  "2퍼\\n센트를" (so "4시간" in an answer does not match its source), "목적\\n으로".

`tidy_pages` drops running lines (among the first and last lines of a page, the same line —
digits aside — on at least half the pages, or a bare page number) and joins a wrapped line to
the next one. A line break stays where a block starts (제N조, ①, "1.", "가.", a bullet), after a
sentence or heading end, and after a line much shorter than the page's full lines. Whether the
join needs a space is Kiwi's call on the words either side ("목적"+"으로" → "목적으로",
"어느"+"일방의" → "어느 일방의"); between Latin words it is always a space. A table the PDF
flattened into lines (a header of words, rows of as many cells with figures) has each row
written with its column names (`_tables`), and no table line is joined.
"""

from __future__ import annotations

import re
from collections import Counter

from dure.documents.tables import has_word, is_figure, is_header, named_row

__all__ = ["tidy_pages"]

#: How many lines at each end of a page may be a header or footer.
EDGE_LINES = 3
#: A line shorter than this share of the page's full lines ends its paragraph.
SHORT_LINE = 0.6

_PAGE_NUMBER = re.compile(
    r"^[-–—(\[\s]*(?:page|p\.)?\s*\d{1,4}\s*(?:/\s*\d{1,4}|쪽|페이지|of\s+\d{1,4})?[-–—)\]\s]*$",
    re.IGNORECASE,
)
_BLOCK_START = re.compile(
    r"^\s*(?:제\s*\d+\s*[조장절관편]|부\s*칙|[①-⑳]|\d{1,2}\s*[.)]\s|\(\d{1,2}\)|"
    r"[가-하]\s*[.)]\s|\([가-하]\)|[-•·※○●□■▶◦*#>|\[【<〈「])"
)
_BLOCK_END = re.compile(r"(?:[.!?。:;)\]」』】>〉]|다)$")
_HANGUL = re.compile(r"[가-힣]")


def _key(line: str) -> str:
    return re.sub(r"\d+", "#", " ".join(line.split()))


def _running(pages: list[list[str]]) -> set[str]:
    """Keys of lines that repeat at the edges of at least half the pages (two at least)."""
    if len(pages) < 2:
        return set()
    seen: Counter[str] = Counter()
    for lines in pages:
        seen.update({_key(line) for line in _edges(lines) if not _BLOCK_START.match(line)})
    least = max(2, (len(pages) + 1) // 2)
    return {key for key, n in seen.items() if n >= least and key}


def _edges(lines: list[str]) -> list[str]:
    return lines[:EDGE_LINES] + lines[-EDGE_LINES:]


def _strip_running(lines: list[str], running: set[str]) -> list[str]:
    """The page's lines without its running lines (each once: page 1's header may also be the
    document's title) and page numbers at its edges."""
    edges = set(range(EDGE_LINES)) | set(range(len(lines) - EDGE_LINES, len(lines)))
    dropped: set[str] = set()
    kept = []
    for i, line in enumerate(lines):
        key = _key(line)
        if i in edges and key in running and key not in dropped:
            dropped.add(key)
        elif not (i in edges and _PAGE_NUMBER.match(line)):
            kept.append(line)
    return kept


def _full_width(lines: list[str]) -> int:
    """The length of the document's full lines: the 90th percentile of its line lengths."""
    lengths = sorted(len(line) for line in lines)
    return lengths[int(len(lengths) * 0.9)] if lengths else 0


def _wraps(line: str, following: str, width: int) -> bool:
    """Whether `line` runs on into `following` (the page's width cut it, not its author)."""
    return bool(
        len(line) >= SHORT_LINE * width
        and not _BLOCK_END.search(line)
        and not _BLOCK_START.match(following)
    )


def _spaced(joins: list[tuple[str, str]]) -> list[bool]:
    """For each (line end, next line start): whether a space goes between them."""
    from dure.retrieval.tokenize import spaced_joins  # documents load before retrieval

    hangul = [i for i, (a, b) in enumerate(joins) if _HANGUL.search(a[-1:] + b[:1])]
    answers = [True] * len(joins)
    for i, spaced in zip(hangul, spaced_joins([joins[i] for i in hangul]), strict=True):
        answers[i] = spaced
    return answers


#: A table flattened into lines: a header of words, then rows of as many cells, a label first
#: and a figure (a cell that starts with a digit or ₩ / $) among the rest. Fewer rows than this is not told from prose.
TABLE_ROWS = 2


def _cells(line: str) -> list[str]:
    return line.split()


def _is_row(cells: list[str], width: int) -> bool:
    return len(cells) == width and has_word(cells[0]) and any(map(is_figure, cells[1:]))


def _tables(lines: list[str]) -> dict[int, str]:
    """Each flattened table's lines (index → text): the header as it is, each row written out
    with its column names (`tables.named_row`: "팀장 100,000원 40,000원" under "구분 숙박비(1박)
    일비(1일)" → "팀장: 숙박비(1박) 100,000원, 일비(1일) 40,000원")."""
    found: dict[int, str] = {}
    for i, line in enumerate(lines):
        header = _cells(line)
        if i in found or not is_header(header):
            continue
        rows = 0
        while i + 1 + rows < len(lines) and _is_row(_cells(lines[i + 1 + rows]), len(header)):
            rows += 1
        if rows < TABLE_ROWS:
            continue
        found[i] = line
        for j in range(i + 1, i + 1 + rows):
            found[j] = named_row(header, _cells(lines[j]))
    return found


def tidy_pages(pages: list[str]) -> str:
    """The text of `pages` (one string each, as extracted): blank and running lines dropped, a
    line the page cut joined to the next (across a page break too), and every other line a
    paragraph of its own (a blank line between: the chunker keeps a table's rows apart)."""
    split = [[line.rstrip() for line in page.split("\n") if line.strip()] for page in pages]
    running = _running(split)
    lines = [line for page in split for line in _strip_running(page, running)]
    width = _full_width(lines)
    tables = _tables(lines)
    wraps = [
        i
        for i in range(len(lines) - 1)
        if i not in tables and i + 1 not in tables and _wraps(lines[i], lines[i + 1], width)
    ]
    spaced = dict(
        zip(wraps, _spaced([(lines[i], lines[i + 1].lstrip()) for i in wraps]), strict=True)
    )
    out: list[str] = []
    carry = ""
    for i, line in enumerate(lines):
        line = tables.get(i, line)
        text = carry + line.lstrip() if carry else line
        carry = text + (" " if spaced[i] else "") if i in spaced else ""
        if not carry:
            out.append(text)
    return "\n\n".join(out)
