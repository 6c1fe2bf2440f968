"""The query adapters: e5 query vectors moved towards contract wording, or over statutes alone
towards statute wording."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from dure.embeddings import Embedder
from dure.retrieval import adapter as adapter_module
from dure.retrieval import collection as collection_module
from dure.retrieval import open_collection
from dure.retrieval.adapter import QueryAdapter, query_adapter
from dure.retrieval.types import Domain
from dure.settings import SearchSettings, Settings

ARTICLES = """제1조(지체상금) 을이 납품기한까지 물품을 납품하지 못한 때에는 지체일수 1일당 계약금액의 1천분의 1.5를 지체상금으로 갑에게 지급한다.
제2조(하자담보) 을은 납품한 물품에 하자가 있는 때에는 갑의 통지를 받은 날부터 7일 이내에 보수하거나 교환하여야 한다.
"""
CONTRACT = "# 물품 공급 계약서\n\n" + ARTICLES
STATUTE = "# 물품공급법\n\n" + ARTICLES


@pytest.mark.parametrize("domain", ["contract", "statute"])
def test_the_shipped_maps_belong_to_e5_alone(domain: Domain) -> None:
    found = query_adapter("multilingual-e5-small-q4", domain)
    assert found is not None and found.matrix.shape == (384, 384)
    assert query_adapter("text-embedding-3-small", domain) is None  # another model's space
    v = np.zeros(384, dtype=np.float32)
    v[0] = 1.0
    mapped = found(v)
    assert mapped.dtype == np.float32
    assert np.linalg.norm(mapped) == pytest.approx(1.0, abs=1e-5)
    assert not np.allclose(mapped, v)
    other = query_adapter(
        "multilingual-e5-small-q4", "contract" if domain == "statute" else "statute"
    )
    assert other is not None and not np.allclose(other.matrix, found.matrix)


def test_a_saved_map_loads_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "adapter.npz"
    QueryAdapter(2 * np.eye(4, dtype=np.float32), "tiny").save(path)
    monkeypatch.setitem(adapter_module.ADAPTER_FILES, "contract", path)
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


THEFT_AND_DAMAGE = [
    "제1조(절도) 타인의 재물을 절취한 자는 6년 이하의 징역 또는 1천만원 이하의 벌금에 처한다.",
    "제2조(손괴) 타인의 재물, 문서 또는 전자기록등 특수매체기록을 손괴 또는 은닉 기타 방법으로 기 "
    "효용을 해한 자는 3년 이하의 징역 또는 700만원 이하의 벌금에 처한다.",
]


def test_the_statute_map_moves_an_everyday_question_towards_the_statute_that_answers_it(
    e5_embedder: Embedder,
) -> None:
    found = query_adapter(e5_embedder.name, "statute")
    assert found is not None
    theft, damage = e5_embedder.embed_documents(THEFT_AND_DAMAGE)
    q = e5_embedder.embed_query("마트에서 계산 안 하고 그냥 가지고 나왔어요")
    mapped = found(q)
    assert float(mapped @ theft - mapped @ damage) > float(q @ theft - q @ damage)


@pytest.mark.parametrize(
    ("text", "enabled", "mapped"),
    [(CONTRACT, True, "contract"), (STATUTE, True, "statute"), (CONTRACT, False, None)],
)
def test_search_maps_the_query_by_the_documents_domain_when_enabled(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    e5_embedder: Embedder,
    text: str,
    enabled: bool,
    mapped: Domain | None,
) -> None:
    calls: list[Domain] = []

    def spy(name: str, domain: Domain = "contract") -> QueryAdapter:
        real = query_adapter(name, domain)
        assert real is not None

        class Spy(QueryAdapter):
            def __call__(self, vector: np.ndarray) -> np.ndarray:
                calls.append(domain)
                return super().__call__(vector)

        return Spy(real.matrix, real.embedder)

    monkeypatch.setattr(collection_module, "query_adapter", spy)
    settings = Settings(data_dir=tmp_path, search=SearchSettings(query_adapter=enabled))
    col = open_collection("adapter", settings, store="memory", dense=True, embedder=e5_embedder)
    col.add_document(text, kind="contract", name="doc.md")
    hits = col.search("늦게 주면 얼마 물어내?", 2)
    assert [h.article_no for h in hits][:1] == ["제1조"]
    assert calls == ([mapped] if mapped else [])
    col.close()
