"""A query-side linear map for e5: everyday questions moved towards contract wording.

e5-small puts "이사 날 비 오면 돈 더 내?" far from the article that says "우천 시 추가요금".
`QueryAdapter` multiplies a query vector by a 384 × 384 matrix, trained beside the identity
(`scripts/search-adapter.py`) on helper-written questions over contracts of their own
(`scripts/search_adapter/`; never a blind set), so that a question's vector lands nearer the
article that answers it. Passages are untouched: collections need no re-embedding, and the map
can be switched off (`search.query_adapter = false`).

It is trained on contracts, so search leaves it out where the thesaurus is left out too: when
every document searched is a statute (on our statute dev set it cost Dure's hit@1 0.78 → 0.73).
It belongs to one embedder's vector space and is skipped for any other.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np

__all__ = ["ADAPTER_FILE", "QueryAdapter", "query_adapter"]

#: The shipped map (float16), written by `scripts/search-adapter.py`.
ADAPTER_FILE = Path(__file__).resolve().parents[1] / "data" / "search" / "query_adapter.npz"


class QueryAdapter:
    """A linear map of query vectors, for the embedder it was trained on."""

    def __init__(self, matrix: np.ndarray, embedder: str) -> None:
        self.matrix = np.asarray(matrix, dtype=np.float32)
        self.embedder = embedder

    def __call__(self, vector: np.ndarray) -> np.ndarray:
        """The mapped vector, L2-normalised (float32)."""
        mapped = self.matrix @ np.asarray(vector, dtype=np.float32)
        return mapped / max(float(np.linalg.norm(mapped)), 1e-12)

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(path, matrix=self.matrix.astype(np.float16), embedder=self.embedder)


@cache
def query_adapter(embedder: str) -> QueryAdapter | None:
    """The shipped adapter when it was trained for `embedder` (by name), else None."""
    if not ADAPTER_FILE.exists():
        return None
    with np.load(ADAPTER_FILE) as data:
        adapter = QueryAdapter(data["matrix"], str(data["embedder"]))
    return adapter if adapter.embedder == embedder else None
