"""The one interface every store implements, and the in-process base the local stores share.

A store keeps a collection's documents (with their full text, so contracts can be re-parsed),
its records (articles or chunks) and, if it is dense, one vector per record. It answers two
ranked queries — keyword (tokens) and vector — each optionally limited to a kind or a
document. Fusion, tokenising and embedding happen above it, in `Collection`.

An OpenSearch store would implement this same class: documents and records as index
documents, `keyword_search` as a `match` query on the stored Kiwi tokens and
`vector_search` as a k-NN query, both with a `filter` on kind/doc_id. No OpenSearch server can
be installed on the machines Dure is built on, so none ships.
"""

from __future__ import annotations

import functools
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, ClassVar, Concatenate, ParamSpec, TypeVar

import numpy as np

from dure.retrieval.keyword import BM25Index
from dure.retrieval.types import Kind, Record, StoredDoc

__all__ = ["LocalStore", "Store", "locked"]

_S = TypeVar("_S", bound="LocalStore")
_P = ParamSpec("_P")
_R = TypeVar("_R")


def locked(method: Callable[Concatenate[_S, _P], _R]) -> Callable[Concatenate[_S, _P], _R]:
    """Run a `LocalStore` method under the store's lock: the server searches from several
    threads while a document may be added, and positions must not move mid-query."""

    @functools.wraps(method)
    def wrapper(self: _S, /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        with self._lock:
            return method(self, *args, **kwargs)

    return wrapper


class Store(ABC):
    """Persistence and ranked lookup for one collection."""

    backend: ClassVar[str]
    #: Whether this store holds vectors (`vector_search` works).
    dense: bool = False

    @abstractmethod
    def meta(self) -> dict[str, Any]:
        """The collection's settings recorded at creation (embedder name and dimension…)."""

    @abstractmethod
    def set_meta(self, meta: dict[str, Any]) -> None:
        """Record the collection's settings."""

    @abstractmethod
    def documents(self) -> list[StoredDoc]:
        """Every document, in the order added (a store may leave `text` empty in this listing;
        `document(doc_id)` returns it whole)."""

    @abstractmethod
    def document(self, doc_id: str) -> StoredDoc | None:
        """One document with its text, or None."""

    @abstractmethod
    def add(self, doc: StoredDoc, records: list[Record], vectors: np.ndarray | None) -> None:
        """Add a document and its records atomically (all or nothing)."""

    def add_many(self, batch: list[tuple[StoredDoc, list[Record], np.ndarray | None]]) -> None:
        """Add several documents (bulk ingestion; local stores save once)."""
        for doc, records, vectors in batch:
            self.add(doc, records, vectors)

    @abstractmethod
    def remove(self, doc_id: str) -> bool:
        """Remove a document and its records; False if it was not there."""

    def replace_vectors(self, ids: list[str], vectors: np.ndarray, meta: dict[str, Any]) -> None:
        """Give every record a new vector (`ids[i]` gets `vectors[i]`, all records covered) and
        record `meta` (the new embedder and dimension), all at once."""
        raise NotImplementedError(f"{self.backend} keeps no vectors")

    @abstractmethod
    def records(self, ids: list[str]) -> list[Record]:
        """Records by id, in the order asked (unknown ids skipped)."""

    @abstractmethod
    def doc_records(self, doc_id: str) -> list[Record]:
        """A document's records in order (articles, or chunks)."""

    @abstractmethod
    def keyword_search(
        self, tokens: list[str], k: int, kind: Kind | None = None, doc_id: str | None = None
    ) -> list[tuple[str, float]]:
        """(record id, score) by keyword relevance, best first."""

    def vector_search(
        self, vector: np.ndarray, k: int, kind: Kind | None = None, doc_id: str | None = None
    ) -> list[tuple[str, float]]:
        """(record id, cosine similarity), best first. Keyword-only stores return nothing."""
        return []

    def count(self) -> int:
        """Number of records."""
        return sum(d.records for d in self.documents())

    def close(self) -> None:  # noqa: B027 — optional hook, most stores hold nothing open
        """Release connections or files."""


class LocalStore(Store):
    """Documents, records and an in-process BM25 index held in this process's memory.

    Subclasses decide about vectors and persistence (`_persist`).
    """

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._meta: dict[str, Any] = {}
        self._docs: dict[str, StoredDoc] = {}
        self._records: list[Record] = []
        self._pos: dict[str, int] = {}
        self._bm25: BM25Index | None = None
        self._masks: dict[tuple[str | None, str | None], np.ndarray] = {}

    # -- persistence hook
    def _persist(self) -> None:
        """Write the state out (no-op in memory)."""

    def _changed(self) -> None:
        self._pos = {r.id: i for i, r in enumerate(self._records)}
        self._bm25 = None
        self._masks.clear()

    # -- Store
    def meta(self) -> dict[str, Any]:
        return dict(self._meta)

    def set_meta(self, meta: dict[str, Any]) -> None:
        self._meta = dict(meta)
        self._persist()

    def documents(self) -> list[StoredDoc]:
        return list(self._docs.values())

    def document(self, doc_id: str) -> StoredDoc | None:
        return self._docs.get(doc_id)

    def add(self, doc: StoredDoc, records: list[Record], vectors: np.ndarray | None) -> None:
        self.add_many([(doc, records, vectors)])

    @locked
    def add_many(self, batch: list[tuple[StoredDoc, list[Record], np.ndarray | None]]) -> None:
        for _, records, vectors in batch:  # check everything before changing anything
            self._validate(records, vectors)
        for doc, records, vectors in batch:
            if doc.doc_id in self._docs:
                self._drop(doc.doc_id)
            doc.records = len(records)
            self._add_vectors(records, vectors)
            self._docs[doc.doc_id] = doc
            self._records.extend(records)
        self._changed()
        self._persist()

    @locked
    def remove(self, doc_id: str) -> bool:
        if doc_id not in self._docs:
            return False
        self._drop(doc_id)
        self._changed()
        self._persist()
        return True

    def _drop(self, doc_id: str) -> None:
        gone = [i for i, r in enumerate(self._records) if r.doc_id == doc_id]
        self._remove_vectors(gone)
        self._records = [r for r in self._records if r.doc_id != doc_id]
        del self._docs[doc_id]

    def _validate(self, records: list[Record], vectors: np.ndarray | None) -> None:
        """Refuse vectors that do not fit (one per record, the collection's dimension)."""
        if not self.dense or not records:
            return
        if vectors is None or len(vectors) != len(records):
            raise ValueError("a dense store needs one vector per record")
        dim = self._meta.get("dim")
        if dim and np.asarray(vectors).shape[1] != dim:
            raise ValueError(f"vector dimension {np.asarray(vectors).shape[1]} != {dim}")

    @locked
    def replace_vectors(self, ids: list[str], vectors: np.ndarray, meta: dict[str, Any]) -> None:
        positions = [self._pos[i] for i in ids if i in self._pos]
        if len(ids) != len(vectors) or sorted(positions) != list(range(len(self._records))):
            raise ValueError("replace_vectors needs one vector for every record")
        ordered = np.empty((len(positions), np.shape(vectors)[1]), dtype=np.float32)
        ordered[positions] = np.asarray(vectors, dtype=np.float32)
        self._reset_vectors(ordered)
        self._meta = dict(meta)
        self._persist()

    def _reset_vectors(self, vectors: np.ndarray) -> None:
        """Hold exactly these vectors, one per record in order (dense stores override)."""
        raise NotImplementedError(f"{self.backend} keeps no vectors")

    def _add_vectors(self, records: list[Record], vectors: np.ndarray | None) -> None:
        """Store vectors for records about to be appended (dense stores override)."""

    def _remove_vectors(self, positions: list[int]) -> None:
        """Forget the vectors at these record positions (dense stores override)."""

    @locked
    def records(self, ids: list[str]) -> list[Record]:
        return [self._records[self._pos[i]] for i in ids if i in self._pos]

    @locked
    def doc_records(self, doc_id: str) -> list[Record]:
        return [r for r in self._records if r.doc_id == doc_id]

    def count(self) -> int:
        return len(self._records)

    def mask(self, kind: Kind | None, doc_id: str | None) -> np.ndarray | None:
        """Which record positions pass the filter (None: all); cached until the next change."""
        if kind is None and doc_id is None:
            return None
        key = (kind, doc_id)
        if key not in self._masks:
            self._masks[key] = np.fromiter(
                (
                    (kind is None or r.kind == kind) and (doc_id is None or r.doc_id == doc_id)
                    for r in self._records
                ),
                dtype=bool,
                count=len(self._records),
            )
        return self._masks[key]

    @locked
    def keyword_search(
        self, tokens: list[str], k: int, kind: Kind | None = None, doc_id: str | None = None
    ) -> list[tuple[str, float]]:
        if self._bm25 is None:
            self._bm25 = BM25Index([r.tokens for r in self._records])
        found = self._bm25.search(tokens, k, self.mask(kind, doc_id))
        return [(self._records[i].id, score) for i, score in found]
