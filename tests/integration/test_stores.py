"""One suite over every store: memory (with vectors), FAISS on disk, Postgres + pgvector.

Vectors come from a small deterministic embedder (hashed Kiwi morphemes), so the suite tests
the stores, not a model; tests at the end run the real e5 model through FAISS and pgvector.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from dure.retrieval import Collection, list_collections, open_collection
from dure.retrieval.tokenize import kiwi_tokens
from dure.retrieval.types import Record, StoredDoc
from dure.settings import Settings

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SW = EXAMPLES / "contracts" / "software_dev.md"
STD = EXAMPLES / "standard" / "software_dev_standard.md"
LEASE = EXAMPLES / "contracts" / "lease.md"


class HashEmbedder:
    """Bag of hashed morphemes → 256-d unit vector: texts sharing words are close."""

    dim = 256

    def __init__(self, name: str = "hash-256") -> None:
        self.name = name

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for tok in kiwi_tokens(text):
                out[row, int(hashlib.md5(tok.encode()).hexdigest(), 16) % self.dim] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.maximum(norms, 1e-9)

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_documents([text])[0]


Opener = Callable[..., Collection]


@pytest.fixture(params=["memory", "faiss", pytest.param("pgvector", marks=pytest.mark.postgres)])
def opener(request: pytest.FixtureRequest, settings: Settings) -> Opener:
    """Opens the same collection again (a new store object) in the parametrised backend."""
    backend = request.param
    dsn = request.getfixturevalue("postgres_url") if backend == "pgvector" else None
    suffix = request.node.name.split("[")[0][-20:]

    def open_(embedder: object | None = None, name: str = f"s-{suffix}") -> Collection:
        return open_collection(
            name,
            settings,
            store=backend,
            dsn=dsn,
            embedder=embedder or HashEmbedder(),  # type: ignore[arg-type]
            dense=True,
        )

    return open_


def test_add_is_idempotent_and_records_are_articles(opener: Opener) -> None:
    col = opener()
    sw = col.add_document(SW, kind="contract")
    assert col.add_document(SW, kind="contract") == sw
    std = col.add_document(STD, kind="standard")
    docs = col.documents()
    assert [d.doc_id for d in docs] == [sw, std]
    assert docs[0].records == len(col.get_contract(sw).articles) + 3  # 전문, 부칙, 별첨
    assert col.store.count() == docs[0].records + docs[1].records
    [rec] = col.store.records([f"{sw}:제11조"])
    assert (rec.article_title, rec.kind, rec.doc) == (
        "하도급",
        "contract",
        "소프트웨어 개발 용역 계약서",
    )
    assert "하도급" in rec.tokens
    assert col.store.records(["nope", f"{std}:제12조"])[0].article_title == "하도급의 제한"


def test_keyword_and_vector_search_with_filters(opener: Opener) -> None:
    col = opener()
    sw = col.add_document(SW, kind="contract")
    std = col.add_document(STD, kind="standard")
    kw = col.store.keyword_search(["지체상금"], 5)
    assert {i.split(":")[0] for i, _ in kw} == {sw, std}
    assert all(s > 0 for _, s in kw)
    assert [i for i, _ in col.store.keyword_search(["지체상금"], 5, kind="standard")][
        0
    ] == f"{std}:제15조"
    assert {i.split(":")[0] for i, _ in col.store.keyword_search(["하도급"], 9, doc_id=sw)} == {sw}
    assert col.store.keyword_search(["없는낱말"], 5) == []

    [target] = col.store.records([f"{std}:제12조"])
    vector = HashEmbedder().embed_query(target.text)
    found = col.store.vector_search(vector, 3)
    assert found[0] == (target.id, pytest.approx(1.0, abs=1e-4))
    assert found[0][1] >= found[1][1] >= found[2][1]
    assert col.store.vector_search(vector, 1, doc_id=std)[0][0] == target.id
    assert {i.split(":")[0] for i, _ in col.store.vector_search(vector, 20, kind="contract")} == {
        sw
    }


def test_hybrid_search_and_removal(opener: Opener) -> None:
    col = opener()
    sw = col.add_document(SW, kind="contract")
    lease = col.add_document(LEASE, kind="contract")
    hit = col.search("하청 줘도 돼?", top_k=3, doc_id=sw)[0]
    assert (hit.article_no, hit.match) == ("제11조", "hybrid")
    assert set(hit.ranks) == {"keyword", "dense"}
    assert col.search("월세 밀리면 쫓겨나?", top_k=1)[0].doc_id == lease
    assert col.remove_document(lease)
    assert not col.remove_document(lease)
    assert {h.doc_id for h in col.search("차임 보증금 임대인", top_k=10)} <= {sw}
    assert col.store.records([f"{lease}:제1조"]) == []


def test_a_collection_survives_reopening(opener: Opener) -> None:
    col = opener()
    sw = col.add_document(SW, kind="contract")
    before = [(h.id, round(h.score, 6)) for h in col.search("지체상금 한도", top_k=5)]
    col.close()
    again = opener()
    if again.store.backend == "memory":  # shared by name within the process
        assert again.store is col.store
    assert [d.doc_id for d in again.documents()] == [sw]
    assert [(h.id, round(h.score, 6)) for h in again.search("지체상금 한도", top_k=5)] == before
    assert again.get_contract(sw).get("제15조").title == "지체상금"


class WideHashEmbedder(HashEmbedder):
    """Yesterday's model: another name and 512 dimensions, as USE collections were built."""

    dim = 512


def test_a_collection_of_another_model_is_re_embedded_on_first_use(opener: Opener) -> None:
    old = opener(embedder=WideHashEmbedder("use-multilingual-v3"))
    sw = old.add_document(SW, kind="contract")
    assert old.store.meta()["dim"] == 512
    old.close()
    col = opener()
    seen: list[tuple[int, int]] = []
    col.progress = lambda label, done, total: seen.append((done, total))
    hits = col.search("지체상금 한도", top_k=3, doc_id=sw)  # first use: re-embedded first
    total = col.store.count()
    assert seen and seen[-1] == (total, total)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
    assert col.store.meta()["embedder"] == "hash-256" and col.store.meta()["dim"] == 256
    assert hits[0].article_no == "제15조"
    [target] = col.store.records([f"{sw}:제12조"])
    assert col.store.vector_search(HashEmbedder().embed_query(target.text), 1)[0][0] == target.id
    col.add_document(LEASE, kind="contract")  # new vectors fit the new dimension
    again = opener()
    assert again.store.meta()["dim"] == 256 and len(again.documents()) == 2
    seen.clear()
    again.progress = lambda label, done, total: seen.append((done, total))
    again.search("보증금", top_k=1)
    assert seen == []  # nothing left to re-embed


def test_a_failed_add_changes_nothing(opener: Opener) -> None:
    col = opener()
    sw = col.add_document(SW, kind="contract")
    count = col.store.count()
    doc = StoredDoc("bad", "contract", "bad.md", "bad", "0" * 64, "제1조(목적) 본문")
    records = [Record("bad:제1조", "bad", "contract", "bad", "제1조", "목적", "본문", 0, ["본문"])]
    with pytest.raises(Exception):  # noqa: B017 — each store raises its own error type
        col.store.add(doc, records, np.zeros((2, 256), dtype=np.float32))
    assert [d.doc_id for d in col.documents()] == [sw]
    assert col.store.count() == count


def test_collections_are_listed(opener: Opener, settings: Settings) -> None:
    col = opener(name="listed")
    col.add_document(SW, kind="contract")
    backend = col.store.backend
    dsn = getattr(col.store, "dsn", None)
    infos = {c.name: c for c in list_collections(settings, store=backend, dsn=dsn)}
    assert infos["listed"].documents == 1
    assert infos["listed"].records == col.store.count()


def test_faiss_with_the_real_embedder(settings: Settings) -> None:
    col = open_collection("real", settings, store="faiss")
    doc_id = col.add_document(SW, kind="contract")
    assert col.store.meta()["embedder"] == "multilingual-e5-small-q4"
    assert col.store.meta()["dim"] == 384
    hits = col.search("개발이 늦어지면 벌금 있어?", top_k=3, doc_id=doc_id)
    assert "제15조" in [h.article_no for h in hits]
    assert (settings.data_dir / "collections" / "real" / "CURRENT").is_file()


@pytest.mark.postgres
def test_postgres_bm25_scores_like_the_in_process_index(
    settings: Settings, postgres_url: str
) -> None:
    pg = open_collection("parity", settings, store="pgvector", dsn=postgres_url, dense=False)
    mem = open_collection("parity-mem", settings, store="memory")
    for col in (pg, mem):
        col.add_document(SW, kind="contract")
        col.add_document(LEASE, kind="contract")
    for tokens in (["지체상금", "납품"], ["하도급"], ["계약", "해지", "통지"]):
        a = pg.store.keyword_search(tokens, 5)
        b = mem.store.keyword_search(tokens, 5)
        assert [i for i, _ in a] == [i for i, _ in b]
        assert [s for _, s in a] == pytest.approx([s for _, s in b], rel=1e-4)
    lease_id = pg.documents()[1].doc_id
    pg.remove_document(lease_id)
    mem.remove_document(lease_id)
    a, b = pg.store.keyword_search(["계약"], 3), mem.store.keyword_search(["계약"], 3)
    assert [s for _, s in a] == pytest.approx([s for _, s in b], rel=1e-4)


def test_faiss_switches_to_hnsw_when_large(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dure.retrieval.stores import faiss_store

    monkeypatch.setattr(faiss_store, "HNSW_MIN", 40)
    col = open_collection("hnsw", settings, store="faiss", embedder=HashEmbedder())  # type: ignore[arg-type]
    sw = col.add_document(SW, kind="contract")  # 29 records: flat
    assert type(col.store._index).__name__ == "IndexFlatIP"
    std = col.add_document(STD, kind="standard")  # 54: converted to HNSW
    assert type(col.store._index).__name__ == "IndexHNSWFlat"
    [target] = col.store.records([f"{std}:제12조"])
    vector = HashEmbedder().embed_query(target.text)
    assert col.store.vector_search(vector, 1)[0][0] == target.id
    assert col.store.vector_search(vector, 1, doc_id=sw)[0][0].startswith(sw)
    reopened = open_collection("hnsw", settings, store="faiss", embedder=HashEmbedder())  # type: ignore[arg-type]
    assert reopened.store.vector_search(vector, 1)[0][0] == target.id
    reopened.remove_document(sw)  # rebuilt from the remaining vectors (flat again)
    assert reopened.store.vector_search(vector, 1)[0][0] == target.id
    assert {i.split(":")[0] for i, _ in reopened.store.vector_search(vector, 10)} == {std}
