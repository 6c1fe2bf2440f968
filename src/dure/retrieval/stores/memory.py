"""The in-memory store: keyword search, nothing written to disk.

Collections live for the life of the process and are shared by name inside it. By default the
store is keyword-only; given `dense=True` it also keeps vectors in a numpy
matrix (brute-force cosine), which suits one contract opened for one chat.
"""

from __future__ import annotations

import threading
from typing import ClassVar

import numpy as np

from dure.retrieval.stores.base import LocalStore, locked
from dure.retrieval.types import Kind, Record

__all__ = ["MemoryStore", "memory_collections"]

_REGISTRY: dict[str, MemoryStore] = {}
_lock = threading.Lock()


class MemoryStore(LocalStore):
    """Records in this process only; optional brute-force vectors."""

    backend: ClassVar[str] = "memory"

    def __init__(self, dense: bool = False) -> None:
        super().__init__()
        self.dense = dense
        self._vectors = np.zeros((0, 0), dtype=np.float32)

    @classmethod
    def named(cls, name: str, dense: bool = False) -> MemoryStore:
        """The process-wide store called `name` (created on first use, then kept as it is)."""
        with _lock:
            store = _REGISTRY.get(name)
            if store is None:
                store = _REGISTRY[name] = cls(dense=dense)
            return store

    def _add_vectors(self, records: list[Record], vectors: np.ndarray | None) -> None:
        if not self.dense or vectors is None:
            return
        v = np.asarray(vectors, dtype=np.float32)
        self._vectors = v if self._vectors.size == 0 else np.vstack([self._vectors, v])

    def _reset_vectors(self, vectors: np.ndarray) -> None:
        self._vectors = vectors

    def _remove_vectors(self, positions: list[int]) -> None:
        if self.dense and positions:
            self._vectors = np.delete(self._vectors, positions, axis=0)

    @locked
    def vector_search(
        self, vector: np.ndarray, k: int, kind: Kind | None = None, doc_id: str | None = None
    ) -> list[tuple[str, float]]:
        if not self.dense or not len(self._records):
            return []
        sims = self._vectors @ np.asarray(vector, dtype=np.float32)
        mask = self.mask(kind, doc_id)
        if mask is not None:
            sims = np.where(mask, sims, -np.inf)
        k = min(k, len(sims))
        top = np.argpartition(-sims, k - 1)[:k]
        top = top[np.argsort(-sims[top], kind="stable")]
        return [(self._records[i].id, float(sims[i])) for i in top if np.isfinite(sims[i])]


def memory_collections() -> dict[str, MemoryStore]:
    """The in-memory collections of this process."""
    return dict(_REGISTRY)
