"""A query-side linear map for e5: everyday questions moved towards contract wording.

e5-small puts "이사 날 비 오면 돈 더 내?" far from the article that says "우천 시 추가요금".
`QueryAdapter` multiplies a query vector by a 384 × 384 matrix, trained beside the identity
(`scripts/search-adapter.py`) on helper-written questions over contracts of their own
(`scripts/search_adapter/`; never a blind set), so that a question's vector lands nearer the
article that answers it. Passages are untouched: collections need no re-embedding, and the map
can be switched off (`search.query_adapter = false`).

The contract map is trained on contracts, and over statutes alone it cost Dure's hit@1 on our
statute dev set 0.78 → 0.73; where every document searched is a statute, search uses the
statute map instead (`domain="statute"`, trained the same way on everyday questions over
statute text, `scripts/statute_adapter/`). Each map belongs to one embedder's vector space and
is skipped for any other.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import numpy as np

from dure.retrieval.types import Domain

__all__ = ["ADAPTER_FILES", "QueryAdapter", "query_adapter"]

_DATA = Path(__file__).resolve().parents[1] / "data" / "search"
#: The shipped maps (float16), written by `scripts/search-adapter.py [--statutes]`.
ADAPTER_FILES: dict[Domain, Path] = {
    "contract": _DATA / "query_adapter.npz",
    "statute": _DATA / "statute_adapter.npz",
}


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
def query_adapter(embedder: str, domain: Domain = "contract") -> QueryAdapter | None:
    """The shipped map for `domain` when it was trained for `embedder` (by name), else None."""
    path = ADAPTER_FILES[domain]
    if not path.exists():
        return None
    with np.load(path) as data:
        adapter = QueryAdapter(data["matrix"], str(data["embedder"]))
    return adapter if adapter.embedder == embedder else None
