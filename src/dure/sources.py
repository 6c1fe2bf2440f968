"""Where an answer's facts came from: one `Source` per cited article or chunk."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from pydantic import BaseModel

SourceKind = Literal["contract", "standard", "document", "web", "tool"]


class Source(BaseModel):
    """A cited article (contract, number, title) or a retrieved chunk."""

    doc: str
    kind: SourceKind = "document"
    article_no: str | None = None
    article_title: str | None = None
    text: str = ""
    score: float | None = None
    url: str | None = None

    def key(self) -> tuple[str, str | None, str | None]:
        """Identity for de-duplication: the same article cited twice is one source."""
        return (self.doc, self.article_no, self.article_title if self.article_no is None else None)

    def body(self) -> str:
        """`text` without the heading path a document chunk opens with (search reads it; the
        label names it)."""
        text = self.text.strip()
        first, _, rest = text.partition("\n")
        return rest.strip() if rest and first.strip() == self.article_title else text

    def label(self) -> str:
        """Short Korean label such as `표준계약서 제5조 (목적)`."""
        parts = [self.doc]
        if self.article_no:
            parts.append(self.article_no)
        if self.article_title:
            parts.append(f"({self.article_title})")
        return " ".join(parts)


def unique_sources(sources: list[Source]) -> list[Source]:
    """Sources in first-seen order without repeats."""
    seen: set[tuple[str, str | None, str | None]] = set()
    out: list[Source] = []
    for s in sources:
        if s.key() not in seen:
            seen.add(s.key())
            out.append(s)
    return out


def parse_sources(items: Iterable[Source | dict[str, Any]] | None) -> list[Source]:
    """Sources as kept in a graph's state (objects, or dicts after a checkpoint round-trip)."""
    return [Source.model_validate(s) for s in items or []]
