"""An article's paragraphs as a third search list (beside Kiwi BM25 and the article's vector).

A question about one detail ("타일이 들뜨면 공짜로 고쳐 줘?") matches that detail's paragraph
better than the whole article, whose vector averages every paragraph. Each line of an article
(①, 1., or running text) of at least `MIN_CHARS` characters is embedded as a passage, headed by
the article's label so it keeps its context. The vectors live in the embedder's content-hash
cache, filled when the document is indexed, not in the store: every store gets the same list,
and a paragraph missing from the cache is embedded on first use. An article's score is its best
paragraph's cosine. Measured in `benchmarks/search.py` (the weight: `search.paragraph_weight`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from dure.embeddings import CachedEmbedder, Embedder, embed_passages
from dure.retrieval.types import Record

__all__ = ["MIN_CHARS", "article_paragraphs", "embed_records", "paragraph_list", "paragraphs"]

#: Shorter lines (a heading alone, "1. 갑:") say too little to match on.
MIN_CHARS = 8


def article_paragraphs(article_no: str, title: str | None, text: str) -> list[tuple[str, str]]:
    """(line, passage) for each paragraph of an article: the line as written and the passage
    embedded for it, headed by the article's label."""
    head = f"{article_no}({title or ''})"
    lines = (line.strip() for line in text.splitlines())
    return [
        (line, line if line.startswith(article_no) else f"{head} {line}")
        for line in lines
        if len(line) >= MIN_CHARS
    ]


def paragraphs(record: Record) -> list[str]:
    """The passages of an article's paragraphs (none for a chunk of another document)."""
    if record.article_no is None:
        return []
    return [p for _, p in article_paragraphs(record.article_no, record.article_title, record.text)]


def embed_records(
    embedder: Embedder,
    records: list[Record],
    progress: Callable[[int, int], None] | None = None,
) -> np.ndarray:
    """The records' vectors, their paragraphs embedded in the same pass (into the cache)."""
    texts = [r.text for r in records]
    if isinstance(embedder, CachedEmbedder):
        texts += [p for r in records for p in paragraphs(r)]
    return embed_passages(embedder, texts, progress)[: len(records)]


def paragraph_list(
    embedder: Embedder, records: list[Record], query: np.ndarray
) -> list[tuple[str, float]]:
    """(record id, best paragraph's cosine with `query`) for the articles among `records`,
    best first; none without a vector cache (each search would embed every paragraph)."""
    if not isinstance(embedder, CachedEmbedder):
        return []
    owners: list[str] = []
    texts: list[str] = []
    for record in records:
        found = paragraphs(record)
        owners += [record.id] * len(found)
        texts += found
    if not texts:
        return []
    sims = embedder.embed_documents(texts) @ np.asarray(query, dtype=np.float32)
    best: dict[str, float] = {}
    for owner, sim in zip(owners, sims.tolist(), strict=True):
        best[owner] = max(best.get(owner, -1.0), sim)
    return sorted(best.items(), key=lambda p: -p[1])
