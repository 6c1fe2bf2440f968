"""An in-process BM25 index (bm25s) over records' tokens, with filtered scoring.

Used by the memory and FAISS stores; Postgres computes the same BM25 in SQL
(`stores/pgvector_store.py`).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import numpy as np

__all__ = ["COMMON_TERM_FRACTION", "LARGE_INDEX", "BM25Index"]

#: From this many records on, query terms found in more than `COMMON_TERM_FRACTION` of them
#: are skipped (when a rarer term is present): their BM25 weight is small, and their
#: posting lists are what makes a query slow on 100k chunks. Smaller indexes stay exact.
LARGE_INDEX = 10_000
COMMON_TERM_FRACTION = 0.25


class BM25Index:
    """BM25 over token lists; `search` ranks all documents, or only those a mask allows."""

    def __init__(self, corpus: Sequence[Sequence[str]], k1: float = 1.2, b: float = 0.75) -> None:
        import bm25s

        logging.getLogger("bm25s").setLevel(logging.WARNING)
        self.size = len(corpus)
        self._bm25 = bm25s.BM25(k1=k1, b=b)
        # bm25s needs at least one token per document; an empty one gets a placeholder.
        docs = [list(toks) if toks else ["\x00"] for toks in corpus]
        if docs:
            self._bm25.index(docs, show_progress=False)

    def search(
        self, tokens: Sequence[str], k: int, mask: np.ndarray | None = None
    ) -> list[tuple[int, float]]:
        """(position, score) of the best `k` documents with a positive score, best first."""
        if not self.size:
            return []
        ids = list(dict.fromkeys(self._bm25.get_tokens_ids(list(tokens))))
        if not ids:
            return []
        s = self._bm25.scores
        data, indices, indptr = s["data"], s["indices"], s["indptr"]
        df = np.array([indptr[i + 1] - indptr[i] for i in ids])
        if self.size >= LARGE_INDEX and (df <= COMMON_TERM_FRACTION * self.size).any():
            ids = [i for i, d in zip(ids, df, strict=True) if d <= COMMON_TERM_FRACTION * self.size]
        # The index stores each (term, document) BM25 contribution; a query sums its terms'.
        rows = np.concatenate([indices[indptr[i] : indptr[i + 1]] for i in ids])
        vals = np.concatenate([data[indptr[i] : indptr[i + 1]] for i in ids])
        scores = np.bincount(rows, weights=vals, minlength=self.size)
        if mask is not None:
            scores = np.where(mask, scores, 0.0)
        k = min(k, self.size)
        top = np.argpartition(-scores, k - 1)[:k] if k < self.size else np.arange(self.size)
        top = top[np.argsort(-scores[top], kind="stable")]
        return [(int(i), float(scores[i])) for i in top if scores[i] > 0]
