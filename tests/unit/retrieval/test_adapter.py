"""The query adapter: e5 query vectors moved towards contract wording, never over statutes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from dure.embeddings import Embedder
from dure.retrieval import adapter as adapter_module
from dure.retrieval import collection as collection_module
from dure.retrieval import open_collection
from dure.retrieval.adapter import QueryAdapter, query_adapter
from dure.settings import SearchSettings, Settings

ARTICLES = """제1조(지체상금) 을이 납품기한까지 물품을 납품하지 못한 때에는 지체일수 1일당 계약금액의 1천분의 1.5를 지체상금으로 갑에게 지급한다.
제2조(하자담보) 을은 납품한 물품에 하자가 있는 때에는 갑의 통지를 받은 날부터 7일 이내에 보수하거나 교환하여야 한다.
"""
CONTRACT = "# 물품 공급 계약서\n\n" + ARTICLES
STATUTE = "# 물품공급법\n\n" + ARTICLES


def test_the_shipped_map_belongs_to_e5_alone() -> None:
    found = query_adapter("multilingual-e5-small-q4")
    assert found is not None and found.matrix.shape == (384, 384)
    assert query_adapter("text-embedding-3-small") is None  # another model's space
    v = np.zeros(384, dtype=np.float32)
    v[0] = 1.0
    mapped = found(v)
    assert mapped.dtype == np.float32
    assert np.linalg.norm(mapped) == pytest.approx(1.0, abs=1e-5)
    assert not np.allclose(mapped, v)


def test_a_saved_map_loads_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "adapter.npz"
    QueryAdapter(2 * np.eye(4, dtype=np.float32), "tiny").save(path)
    monkeypatch.setattr(adapter_module, "ADAPTER_FILE", path)
    query_adapter.cache_clear()
    try:
        loaded = query_adapter("tiny")
        assert loaded is not None and np.allclose(loaded.matrix, 2 * np.eye(4))
        assert query_adapter("multilingual-e5-small-q4") is None
    finally:
        query_adapter.cache_clear()


def test_an_everyday_question_moves_towards_the_article_that_answers_it(
    e5_embedder: Embedder,
) -> None:
    found = query_adapter(e5_embedder.name)
    assert found is not None
    late, defect = e5_embedder.embed_documents(ARTICLES.splitlines())
    q = e5_embedder.embed_query("기한 넘겨서 늦게 갖다주면 하루에 얼마씩 물어내?")
    lead = float(q @ late - q @ defect)
    mapped = found(q)
    assert float(mapped @ late - mapped @ defect) > lead


@pytest.mark.parametrize(
    ("text", "enabled", "mapped"),
    [(CONTRACT, True, True), (STATUTE, True, False), (CONTRACT, False, False)],
)
def test_search_maps_the_query_over_contracts_when_enabled(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    e5_embedder: Embedder,
    text: str,
    enabled: bool,
    mapped: bool,
) -> None:
    calls: list[np.ndarray] = []

    def spy(name: str) -> QueryAdapter:
        real = query_adapter(name)
        assert real is not None

        class Spy(QueryAdapter):
            def __call__(self, vector: np.ndarray) -> np.ndarray:
                calls.append(vector)
                return super().__call__(vector)

        return Spy(real.matrix, real.embedder)

    monkeypatch.setattr(collection_module, "query_adapter", spy)
    settings = Settings(data_dir=tmp_path, search=SearchSettings(query_adapter=enabled))
    col = open_collection("adapter", settings, store="memory", dense=True, embedder=e5_embedder)
    col.add_document(text, kind="contract", name="doc.md")
    hits = col.search("늦게 주면 얼마 물어내?", 2)
    assert [h.article_no for h in hits][:1] == ["제1조"]
    assert bool(calls) is mapped
    col.close()
