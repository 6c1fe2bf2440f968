"""The FAISS store: inner-product search (exact, HNSW when large), persisted under data_dir.

Layout: `<data_dir>/collections/<name>/` holds `CURRENT` and one `vNNNNNN/` directory per
saved state (`meta.json`, `docs.json`, `records.jsonl`, `index.faiss`). A save writes a new
version and then replaces `CURRENT` atomically, so a crash or a failed ingestion never leaves
a half-written collection: what was indexed before stays readable.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar

import numpy as np

from dure.retrieval.stores.base import LocalStore, locked
from dure.retrieval.types import Kind, Record, StoredDoc

__all__ = ["HNSW_MIN", "FaissStore"]

#: From this many vectors on, an HNSW graph answers unfiltered queries (a flat scan of 100k
#: 512-d vectors reads 200 MB per query); below it, and for small filtered subsets, search
#: is exact. Measured in `benchmarks/search.py` (100k chunks).
HNSW_MIN = 20_000
HNSW_M = 32
HNSW_EF_CONSTRUCTION = 40
HNSW_EF = 64


def _faiss() -> ModuleType:
    """The faiss module, imported on first use. Used untyped: its bundled stubs miss parts of
    the API this store calls (`SearchParametersHNSW`, `SearchParameters(sel=...)`, and
    `remove_ids` with an id array), so the indexes stay `Any` here."""
    import faiss

    return faiss


def _current_version(root: Path) -> Path | None:
    pointer = root / "CURRENT"
    if not pointer.is_file():
        return None
    path = root / pointer.read_text().strip()
    return path if path.is_dir() else None


class FaissStore(LocalStore):
    """A flat inner-product FAISS index beside JSON records, saved atomically per change."""

    backend: ClassVar[str] = "faiss"

    def __init__(self, root: Path, threads: int = 1, dense: bool | None = None) -> None:
        """`dense=None`: as the collection on disk was built (new ones hold vectors)."""
        super().__init__()
        self.root = Path(root)
        # A keyword-only FAISS collection is persisted the same way, without an index file.
        self.dense = True if dense is None else dense
        self._dim: int | None = None
        self._index: Any = None
        # faiss parallelises with OpenMP; on 2 shared cores one thread avoids oversubscription.
        _faiss().omp_set_num_threads(threads)
        self._load()
        if dense is None and self._docs:
            self.dense = self._meta.get("embedder") is not None

    # -- persistence
    def _current(self) -> Path | None:
        return _current_version(self.root)

    @staticmethod
    def holds_documents(root: Path) -> bool:
        """Whether the collection at `root` has a document, without loading it."""
        path = _current_version(root)
        docs = path / "docs.json" if path is not None else None
        return docs is not None and docs.is_file() and docs.stat().st_size > len("[]")

    def _load(self) -> None:
        path = self._current()
        if path is None:
            return
        faiss = _faiss()
        self._meta = json.loads((path / "meta.json").read_text(encoding="utf-8"))
        docs = json.loads((path / "docs.json").read_text(encoding="utf-8"))
        self._docs = {d["doc_id"]: StoredDoc(**d) for d in docs}
        with (path / "records.jsonl").open(encoding="utf-8") as f:
            self._records = [Record(**json.loads(line)) for line in f if line.strip()]
        if (path / "index.faiss").is_file():
            self._index = faiss.read_index(str(path / "index.faiss"))
            self._dim = self._index.d
            self.dense = True  # what is on disk decides, so positions stay aligned
        self._changed()

    def _persist(self) -> None:
        faiss = _faiss()
        self.root.mkdir(parents=True, exist_ok=True)
        old = self._current()
        version = int(old.name[1:]) + 1 if old is not None else 1
        new = self.root / f"v{version:06d}"
        shutil.rmtree(new, ignore_errors=True)
        new.mkdir()
        (new / "meta.json").write_text(json.dumps(self._meta, ensure_ascii=False), "utf-8")
        (new / "docs.json").write_text(
            json.dumps([d.__dict__ for d in self._docs.values()], ensure_ascii=False), "utf-8"
        )
        with (new / "records.jsonl").open("w", encoding="utf-8") as f:
            for r in self._records:
                f.write(json.dumps(r.to_json(), ensure_ascii=False) + "\n")
        if self._index is not None:
            faiss.write_index(self._index, str(new / "index.faiss"))
        tmp = self.root / "CURRENT.tmp"
        tmp.write_text(new.name)
        os.replace(tmp, self.root / "CURRENT")
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)

    # -- vectors
    def _flat(self) -> Any:
        """The exact index: the flat index itself, or the HNSW graph's flat storage."""
        if isinstance(self._index, _faiss().IndexHNSW):
            return _faiss().downcast_index(self._index.storage)
        return self._index

    def _rebuild(self, vectors: np.ndarray) -> None:
        """Flat below `HNSW_MIN` vectors, HNSW (with its flat storage) from there on."""
        faiss = _faiss()
        if len(vectors) >= HNSW_MIN:
            index = faiss.IndexHNSWFlat(self._dim, HNSW_M, faiss.METRIC_INNER_PRODUCT)
            index.hnsw.efConstruction = HNSW_EF_CONSTRUCTION
        else:
            index = faiss.IndexFlatIP(self._dim)
        if len(vectors):
            index.add(np.ascontiguousarray(vectors, dtype=np.float32))
        self._index = index

    def _add_vectors(self, records: list[Record], vectors: np.ndarray | None) -> None:
        if not records or not self.dense or vectors is None:
            return
        v = np.ascontiguousarray(vectors, dtype=np.float32)
        if self._index is None:
            self._dim = v.shape[1]
            self._rebuild(np.zeros((0, self._dim), dtype=np.float32))
        if v.shape[1] != self._dim:
            raise ValueError(f"vector dimension {v.shape[1]} != collection dimension {self._dim}")
        n = self._index.ntotal
        if isinstance(self._index, _faiss().IndexFlat) and n + len(v) >= HNSW_MIN:
            self._rebuild(np.vstack([self._index.reconstruct_n(0, n), v]))
        else:
            self._index.add(v)  # HNSW inserts into its graph incrementally

    def _reset_vectors(self, vectors: np.ndarray) -> None:
        self._dim = int(vectors.shape[1])
        self._rebuild(vectors)

    def _remove_vectors(self, positions: list[int]) -> None:
        if not positions or self._index is None:
            return
        if isinstance(self._index, _faiss().IndexFlat):
            # IndexFlat compacts in order, exactly as the record list does.
            self._index.remove_ids(np.asarray(positions, dtype=np.int64))
            return
        # An HNSW graph cannot drop nodes: rebuild it from the remaining vectors (slow on
        # very large collections; removing documents is rare).
        vectors = np.delete(self._flat().reconstruct_n(0, self._index.ntotal), positions, axis=0)
        self._rebuild(vectors)

    @locked
    def vector_search(
        self, vector: np.ndarray, k: int, kind: Kind | None = None, doc_id: str | None = None
    ) -> list[tuple[str, float]]:
        if self._index is None or not self._index.ntotal:
            return []
        faiss = _faiss()
        q = np.ascontiguousarray(np.asarray(vector, dtype=np.float32).reshape(1, -1))
        mask = self.mask(kind, doc_id)
        hnsw = isinstance(self._index, faiss.IndexHNSW)
        index, params, selector = self._index, None, None
        if mask is not None:
            allowed = np.flatnonzero(mask).astype(np.int64)
            if not len(allowed):
                return []
            k = min(k, len(allowed))
            selector = faiss.IDSelectorBatch(allowed)  # must outlive the search call
            if hnsw and len(allowed) >= HNSW_MIN:
                params = faiss.SearchParametersHNSW(sel=selector, efSearch=max(HNSW_EF, k))
            else:  # a small subset: exact, on the flat vectors
                index, params = self._flat(), faiss.SearchParameters(sel=selector)
        elif hnsw:
            params = faiss.SearchParametersHNSW(efSearch=max(HNSW_EF, k))
        scores, idx = index.search(q, min(k, self._index.ntotal), params=params)
        return [
            (self._records[i].id, float(s))
            for i, s in zip(idx[0], scores[0], strict=True)
            if i >= 0
        ]
