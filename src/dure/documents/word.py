"""A Word document's text: paragraphs with the numbers Word draws for them, the title and
headings as Markdown headings, tables as Markdown rows (`documents.tables` writes them out).

A contract written in Word often numbers its articles and paragraphs with a list ("제%1조",
"①", "가.") rather than typed text. Those numbers are not in a paragraph's text: python-docx
reads "(목적) 이 계약은 …" where the reader sees "제1조 (목적) 이 계약은 …", and the contract
parser finds no article. `ListNumbers` counts the lists as Word does — per list, a level's
counter starting at its `start` (or the list's `startOverride`), deeper levels starting again
when a higher one moves on — and renders each level's `lvlText` in its format.

Formats: decimal (also zero-padded), circled digits (①–⑳), 가나다, ㄱㄴㄷ, Roman numerals and
letters; bullets as drawn; any other format is written in digits, which keeps "제%1조" an
article heading.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["ListNumbers", "docx_text"]

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_CIRCLED = "①②③④⑤⑥⑦⑧⑨⑩⑪⑫⑬⑭⑮⑯⑰⑱⑲⑳"
_GANADA = "가나다라마바사아자차카타파하"
_CHOSUNG = "ㄱㄴㄷㄹㅁㅂㅅㅇㅈㅊㅋㅌㅍㅎ"
_ROMAN = [(1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
          (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")]  # fmt: skip


def _roman(n: int) -> str:
    out = ""
    for value, letters in _ROMAN:
        while n >= value:
            out, n = out + letters, n - value
    return out


def _letter(n: int) -> str:
    return chr(ord("A") + (n - 1) % 26) * ((n - 1) // 26 + 1)


def _cyclic(symbols: str, n: int) -> str:
    return symbols[(n - 1) % len(symbols)] if n > 0 else str(n)


def render(fmt: str, n: int) -> str:
    """Counter `n` in Word's number format `fmt`."""
    if fmt == "decimalZero":
        return f"{n:02d}"
    if fmt.startswith("decimalEnclosedCircle"):
        return _CIRCLED[n - 1] if 0 < n <= len(_CIRCLED) else str(n)
    if fmt == "ganada":
        return _cyclic(_GANADA, n)
    if fmt == "chosung":
        return _cyclic(_CHOSUNG, n)
    if fmt in ("upperRoman", "lowerRoman"):
        roman = _roman(n)
        return roman if fmt == "upperRoman" else roman.lower()
    if fmt in ("upperLetter", "lowerLetter"):
        letter = _letter(n)
        return letter if fmt == "upperLetter" else letter.lower()
    return str(n)


def _val(element: Any, tag: str, default: str | None = None) -> str | None:
    found = element.find(f"{_W}{tag}") if element is not None else None
    return found.get(f"{_W}val", default) if found is not None else default


class _Level:
    def __init__(self, element: Any) -> None:
        self.fmt = _val(element, "numFmt", "decimal") or "decimal"
        self.text = _val(element, "lvlText", "") or ""
        self.start = int(_val(element, "start", "1") or 1)


class ListNumbers:
    """Labels for a document's numbered paragraphs, in reading order (call `label` once for
    every paragraph, in order)."""

    def __init__(self, document: Any) -> None:
        self._levels: dict[str, dict[int, _Level]] = {}
        self._starts: dict[tuple[str, int], int] = {}
        self._counters: dict[str, dict[int, int]] = {}
        self._styles: dict[str, tuple[str, int]] = {}
        try:
            root = document.part.numbering_part.element
        except (KeyError, NotImplementedError, AttributeError):  # no numbering part
            return
        abstract = {
            a.get(f"{_W}abstractNumId"): {
                int(lvl.get(f"{_W}ilvl", "0")): _Level(lvl) for lvl in a.iter(f"{_W}lvl")
            }
            for a in root.iter(f"{_W}abstractNum")
        }
        for num in root.iter(f"{_W}num"):
            num_id = num.get(f"{_W}numId")
            levels = abstract.get(_val(num, "abstractNumId"), {})
            self._levels[num_id] = levels
            for override in num.iter(f"{_W}lvlOverride"):
                start = _val(override, "startOverride")
                if start is not None:
                    self._starts[(num_id, int(override.get(f"{_W}ilvl", "0")))] = int(start)
        for style in document.styles:
            ppr = getattr(style.element, "pPr", None)
            num_pr = ppr.numPr if ppr is not None else None
            if num_pr is not None and num_pr.numId is not None:
                ilvl = num_pr.ilvl.val if num_pr.ilvl is not None else 0
                self._styles[style.style_id] = (str(num_pr.numId.val), int(ilvl))

    def label(self, paragraph: Any) -> str:
        """The number Word draws before `paragraph` ("제1조", "①", "가.") or ""."""
        found = self._list_of(paragraph)
        if found is None:
            return ""
        num_id, ilvl = found
        levels = self._levels.get(num_id, {})
        if ilvl not in levels:
            return ""
        counters = self._counters.setdefault(num_id, {})
        counters[ilvl] = counters.get(ilvl, self._start(num_id, ilvl) - 1) + 1
        for deeper in [lvl for lvl in counters if lvl > ilvl]:
            del counters[deeper]

        def number(match: re.Match[str]) -> str:
            lvl = int(match.group(1)) - 1
            count = counters.get(lvl, self._start(num_id, lvl))
            return render(levels[lvl].fmt if lvl in levels else "decimal", count)

        level = levels[ilvl]
        if level.fmt == "none":
            return ""
        if level.fmt == "bullet":  # a symbol font's private-use glyph reads as a plain bullet
            return "•" if re.search("[\ue000-\uf8ff]", level.text) else level.text.strip()
        return re.sub(r"%(\d)", number, level.text).strip()

    def _start(self, num_id: str, ilvl: int) -> int:
        level = self._levels.get(num_id, {}).get(ilvl)
        return self._starts.get((num_id, ilvl), level.start if level else 1)

    def _list_of(self, paragraph: Any) -> tuple[str, int] | None:
        ppr = paragraph._p.pPr
        num_pr = ppr.numPr if ppr is not None else None
        if num_pr is not None and num_pr.numId is not None:
            num_id = str(num_pr.numId.val)
            if num_id == "0":  # numbering switched off for this paragraph
                return None
            ilvl = num_pr.ilvl.val if num_pr.ilvl is not None else 0
            return num_id, int(ilvl)
        style = paragraph.style
        return self._styles.get(style.style_id) if style is not None else None


def docx_text(document: Any) -> tuple[str, int]:
    """(text, number of tables) of an open python-docx `Document`, in reading order."""
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    lines: list[str] = []
    tables = 0
    numbers = ListNumbers(document)
    for block in document.iter_inner_content():
        if isinstance(block, Paragraph):
            style = (block.style.name if block.style is not None else "") or ""
            label = numbers.label(block)  # counted for empty paragraphs too, as Word does
            text = block.text.strip()
            if not text:
                continue
            text = f"{label} {text}" if label else text
            level = _heading_level(style)
            lines.append(f"{'#' * level} {text}" if level else text)
        elif isinstance(block, Table):
            tables += 1
            lines.append(_table_text(block))
    return "\n".join(lines), tables


def _heading_level(style: str) -> int:
    """The Markdown heading level of a paragraph style (0: not a heading). The title is a
    top-level heading: as a paragraph it was a chunk of its own that search returned."""
    if style in ("Title", "제목"):
        return 1
    level = re.match(r"(?:Heading|제목)\s*(\d)", style)
    return int(level.group(1)) if level else 0


def _table_text(table: Any) -> str:
    """A table as Markdown-like rows; merged cells repeat in python-docx, so drop repeats."""
    rows: list[str] = []
    for row in table.rows:
        cells: list[str] = []
        for cell in row.cells:
            text = " ".join(cell.text.split())
            if not cells or cells[-1] != text:
                cells.append(text)
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows)
