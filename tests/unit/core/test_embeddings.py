"""The process-wide embedder: e5 prefixes and threads, the vector cache, batched progress."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from dure.embeddings import (
    CachedEmbedder,
    E5Embedder,
    _omp_threads,
    embed_passages,
    get_embedder,
)
from dure.retrieval import open_collection
from dure.retrieval.paragraphs import paragraphs
from dure.settings import Settings

SW = Path(__file__).resolve().parents[3] / "examples" / "contracts" / "software_dev.md"


class CountingEmbedder:
    """Deterministic 8-d vectors from the text's bytes; counts the passages it embeds."""

    name = "counting-8"
    dim = 8

    def __init__(self) -> None:
        self.embedded: list[str] = []

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        self.embedded += texts
        out = np.array(
            [[sum(t.encode()[i::8]) + 1.0 for i in range(8)] for t in texts], dtype=np.float32
        ).reshape(len(texts), 8)
        return out / np.linalg.norm(out, axis=1, keepdims=True)

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_documents([text])[0]


def test_passages_are_cached_by_content_hash_across_instances(tmp_path: Path) -> None:
    inner = CountingEmbedder()
    cached = CachedEmbedder(inner, tmp_path / "emb.sqlite")
    first = cached.embed_documents(["가", "나", "가"])
    assert inner.embedded == ["가", "나"]  # a repeated text is embedded once
    assert np.allclose(first[0], first[2])
    again = CachedEmbedder(inner, tmp_path / "emb.sqlite")  # another process, same file
    assert np.allclose(again.embed_documents(["나", "다"])[0], first[1])
    assert inner.embedded == ["가", "나", "다"]
    other_model = CountingEmbedder()
    other_model.name = "counting-other"
    CachedEmbedder(other_model, tmp_path / "emb.sqlite").embed_documents(["가"])
    assert other_model.embedded == ["가"]  # the cache is per model


def test_re_indexing_unchanged_text_embeds_nothing(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path)
    inner = CountingEmbedder()
    col = open_collection(
        "cache", settings, store="faiss", embedder=CachedEmbedder(inner, tmp_path / "e.sqlite")
    )
    doc_id = col.add_document(SW, kind="contract")
    n = len(inner.embedded)
    records = col.store.doc_records(doc_id)
    assert n == len(records) + sum(len(paragraphs(r)) for r in records) > 40
    col.remove_document(doc_id)
    assert col.add_document(SW, kind="contract") == doc_id
    edited = SW.read_text(encoding="utf-8").replace("100분의 10", "100분의 20")
    col.add_document(edited, kind="contract", name="software_dev.md")  # one article changed
    assert len(inner.embedded) == n + 2  # that article and its one changed paragraph


def test_embedding_in_batches_reports_progress() -> None:
    inner = CountingEmbedder()
    seen: list[tuple[int, int]] = []
    texts = [f"조항 {i}" for i in range(19)]
    out = embed_passages(inner, texts, lambda done, total: seen.append((done, total)))
    assert out.shape == (19, 8)
    assert seen == [(8, 19), (16, 19), (19, 19)]
    assert np.allclose(out, inner.embed_documents(texts))


def test_e5_is_one_model_per_process_and_leaves_the_environment_alone(tmp_path: Path) -> None:
    before = os.environ.get("OMP_NUM_THREADS")
    a = get_embedder(Settings(data_dir=tmp_path))
    b = get_embedder(Settings(data_dir=tmp_path))
    assert a is b
    assert isinstance(a, CachedEmbedder) and isinstance(a.inner, E5Embedder)
    elsewhere = get_embedder(Settings(data_dir=tmp_path / "other"))
    assert isinstance(elsewhere, CachedEmbedder) and elsewhere is not a
    assert elsewhere.inner is a.inner  # another cache file, the same loaded model
    assert os.environ.get("OMP_NUM_THREADS") == before  # llama.cpp and FAISS keep their own
    assert a.embed_query("").shape == (384,)  # an empty text still embeds
    assert a.embed_documents(["계약\ud800서"]).shape == (1, 384)  # a lone surrogate too


def test_e5_threads_are_sized_and_passive_only_while_its_runtime_loads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OMP_NUM_THREADS", "7")
    monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    with _omp_threads(2):
        assert os.environ["OMP_NUM_THREADS"] == "2"
        assert os.environ["OMP_WAIT_POLICY"] == "PASSIVE"
    assert os.environ["OMP_NUM_THREADS"] == "7"
    assert "OMP_WAIT_POLICY" not in os.environ


def test_an_openai_embedder_that_cannot_connect_says_so(tmp_path: Path) -> None:
    from dure.embeddings import EmbeddingError

    settings = Settings(
        data_dir=tmp_path,
        search={"embedder": "openai", "embedding_base_url": "http://127.0.0.1:9/v1"},
        max_retries=0,
        request_timeout=2,
    )
    with pytest.raises(EmbeddingError, match="임베딩 서버"):
        get_embedder(settings).embed_documents(["가"])
