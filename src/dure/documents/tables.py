"""Tables as text a small model reads right: each row written out with its column names.

A table reaches Dure as rows of cells: Markdown rows in a Markdown file, in a Word file
(`documents.word`) and in what hwpforge makes of HWP/HWPX, or lines a PDF flattened
(`documents.pdftext`). Bare, a row is a label and figures ("| 팀장 | 100,000원 | 40,000원 |"),
and a 1.5B model read one row's figure as another's ("팀장 숙박비" answered with a 20,000원 from
elsewhere). So a row under a header of column names is written out with them: "팀장: 숙박비(1박)
100,000원, 일비(1일) 40,000원" — the answer's source and its quote are then the row itself.
The header stays as written; a table without one (no Markdown separator row under its first
row, and that row holds figures or a sentence) keeps its rows as they are.
"""

from __future__ import annotations

import re

__all__ = ["has_word", "is_figure", "is_header", "markdown_tables", "named_row"]

_WORD = re.compile(r"[^\W\d_]")
_FIGURE = re.compile(r"[\d₩$]")
_SENTENCE_END = re.compile(r"(?:[.!?]|다)$")
_SEPARATOR = re.compile(r"^\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)*\|?$")


def has_word(cell: str) -> bool:
    """Whether `cell` holds a letter (of any script)."""
    return bool(_WORD.search(cell))


def is_figure(cell: str) -> bool:
    """Whether `cell` opens with a figure (a digit, ₩ or $)."""
    return bool(_FIGURE.match(cell))


def is_header(cells: list[str]) -> bool:
    """Column names: two or more, each a word (not a figure), none a sentence's end."""
    return (
        len(cells) >= 2
        and all(has_word(c) and not is_figure(c) for c in cells)
        and not any(_SENTENCE_END.search(c) for c in cells)
    )


def named_row(header: list[str], cells: list[str]) -> str:
    """A row with its column names: the first cell labels it, each other cell follows its
    column's name (an empty cell is left out)."""
    label, *values = cells
    named = ", ".join(f"{h} {v}" for h, v in zip(header[1:], values, strict=True) if v)
    return f"{label}: {named}" if named else label


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def markdown_tables(text: str) -> str:
    """`text` with each Markdown table under a header written out row by row (`named_row`), a
    blank line between rows so each stays a paragraph of its own; separator rows dropped."""
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        if not lines[i].lstrip().startswith("|"):
            out.append(lines[i])
            i += 1
            continue
        end = i
        while end < len(lines) and lines[end].lstrip().startswith("|"):
            end += 1
        out.append(_table(lines[i:end]))
        i = end
    return "\n".join(out)


def _table(rows: list[str]) -> str:
    separator = [bool(_SEPARATOR.match(r.strip())) for r in rows]
    body = [r for r, sep in zip(rows, separator, strict=True) if not sep]
    if len(body) < 2:
        return "\n".join(rows)
    header = _cells(body[0])
    # A separator row under the first says it is the header; else its cells must look like one.
    marked = separator[1] and all(header)
    if not (marked or is_header(header)):
        return "\n".join(rows)
    named = [
        named_row(header, cells) if len(cells) == len(header) and cells[0] else row.strip()
        for row, cells in ((r, _cells(r)) for r in body[1:])
    ]
    return "\n\n".join(["", body[0].strip(), *named, ""])
