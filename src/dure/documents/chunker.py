"""Heading-aware chunks for ordinary documents (the assistant's RAG).

A chunk never spans two sections: headings (Markdown `#`, `제1장`, `1.`-style numbered
headings, DOCX heading styles rendered as `#`) start a new section, and each chunk carries
its heading path so a retrieved chunk still says where it came from. Inside a section,
paragraphs (then sentences, for long ones) are packed up to a token budget, and consecutive
chunks overlap by a few sentences so a fact cut at a boundary is still found.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Chunk", "chunk_text", "estimate_tokens"]

_HANGUL = re.compile(r"[가-힣]")
_WORD = re.compile(r"[A-Za-z0-9]+|[^\sA-Za-z0-9가-힣]")
_MD_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_KO_HEADING = re.compile(
    r"^(제\s*\d+\s*[장절관편]|[IVX]+\.|\d{1,2}\.(?:\d{1,2}\.)*)\s*(\S.{0,48})$"
)
_SENTENCE = re.compile(r"(?<=[.!?。])\s+|(?<=다\.)\s*|(?<=[요죠]\.)\s*")


def estimate_tokens(text: str) -> int:
    """A cheap token estimate: about two Hangul syllables per token, one per Latin word or sign.

    Good enough for budgets (LLM tokenizers differ by model; exact counts are not needed here).
    """
    return (len(_HANGUL.findall(text)) + 1) // 2 + len(_WORD.findall(text))


@dataclass(frozen=True)
class Chunk:
    """A piece of a document: its text, the heading path above it, and its order."""

    text: str
    heading: str | None
    index: int
    tokens: int


def _heading(line: str) -> tuple[int, str] | None:
    if m := _MD_HEADING.match(line):
        return len(m.group(1)), m.group(2).strip()
    s = line.strip()
    # A short line that opens with a chapter number and does not read as a sentence.
    if (m := _KO_HEADING.match(s)) and not s.endswith(("다.", "다", ".")):
        depth = 1 if "장" in m.group(1) or "편" in m.group(1) else 2 + m.group(1).count(".") - 1
        return max(1, depth), s
    return None


def _sections(text: str) -> list[tuple[str | None, list[str]]]:
    """(heading path, paragraphs) per section, in order."""
    path: list[tuple[int, str]] = []
    sections: list[tuple[str | None, list[str]]] = [(None, [])]
    para: list[str] = []

    def flush() -> None:
        if para:
            sections[-1][1].append(" ".join(para).strip())
            para.clear()

    for line in text.split("\n"):
        if h := _heading(line):
            flush()
            level, title = h
            path = [p for p in path if p[0] < level] + [(level, title)]
            sections.append((" > ".join(t for _, t in path), []))
        elif not line.strip():
            flush()
        elif line.lstrip().startswith("|"):  # table rows stay one per line
            flush()
            sections[-1][1].append(line.strip())
        else:
            para.append(line.strip())
    flush()
    return [(h, ps) for h, ps in sections if ps]


def _pieces(paragraph: str, budget: int) -> list[str]:
    """A paragraph as-is, or split into sentences (then hard-cut) when it exceeds the budget."""
    if estimate_tokens(paragraph) <= budget:
        return [paragraph]
    out: list[str] = []
    for sentence in (s for s in _SENTENCE.split(paragraph) if s and s.strip()):
        while estimate_tokens(sentence) > budget:
            cut = max(1, len(sentence) * budget // max(estimate_tokens(sentence), 1))
            out.append(sentence[:cut])
            sentence = sentence[cut:]
        out.append(sentence.strip())
    return [p for p in out if p]


def chunk_text(text: str, max_tokens: int = 300, overlap_tokens: int = 50) -> list[Chunk]:
    """Split `text` into heading-aware chunks of at most about `max_tokens` tokens.

    Each chunk after the first in a section starts with up to `overlap_tokens` tokens of the
    previous chunk's last pieces. The heading path is kept on the chunk (not in its text).
    """
    if max_tokens < 20:
        raise ValueError("max_tokens must be at least 20")
    overlap_tokens = max(0, min(overlap_tokens, max_tokens // 2))
    chunks: list[Chunk] = []
    for heading, paragraphs in _sections(text):
        pieces = [p for para in paragraphs for p in _pieces(para, max_tokens)]
        current: list[str] = []
        size = 0
        fresh = 0  # pieces in `current` that are not overlap from the previous chunk
        for piece in pieces:
            t = estimate_tokens(piece)
            if current and size + t > max_tokens and fresh:
                chunks.append(_make(current, heading, len(chunks)))
                current, size = _tail(current, overlap_tokens, max_tokens - t)
                fresh = 0
            current.append(piece)
            size += t
            fresh += 1
        if fresh:
            chunks.append(_make(current, heading, len(chunks)))
    return chunks


def _tail(pieces: list[str], overlap: int, room: int) -> tuple[list[str], int]:
    """The last pieces of a chunk worth at most `overlap` tokens (and fitting in `room`)."""
    kept: list[str] = []
    size = 0
    for piece in reversed(pieces):
        t = estimate_tokens(piece)
        if size + t > min(overlap, room):
            break
        kept.insert(0, piece)
        size += t
    return kept, size


def _make(pieces: list[str], heading: str | None, index: int) -> Chunk:
    text = "\n".join(pieces)
    return Chunk(text=text, heading=heading, index=index, tokens=estimate_tokens(text))
