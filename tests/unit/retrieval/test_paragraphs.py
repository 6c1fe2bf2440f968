"""An article's paragraphs as a third search list: what a paragraph is, that indexing embeds
them into the vector cache in the same pass, and that search reads them from there."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from tests.unit.core.test_embeddings import CountingEmbedder
from tests.unit.retrieval.conftest import SAMPLES

from dure.embeddings import CachedEmbedder, Embedder
from dure.retrieval import open_collection
from dure.retrieval.paragraphs import paragraph_list, paragraphs
from dure.retrieval.types import Record
from dure.settings import SearchSettings, Settings

ARTICLE = Record(
    id="d:제3조",
    doc_id="d",
    kind="contract",
    doc="용역계약서",
    article_no="제3조",
    article_title="계약기간",
    text="제3조(계약기간) ① 수행기간은 2025년 3월 1일부터 8월 31일까지로 한다.\n"
    "② 갑과 을은 서면 합의로 계약기간을 연장할 수 있다.\n1. 갑:\n",
    position=3,
)


def test_an_articles_lines_are_its_paragraphs_headed_by_its_label() -> None:
    assert paragraphs(ARTICLE) == [
        "제3조(계약기간) ① 수행기간은 2025년 3월 1일부터 8월 31일까지로 한다.",
        "제3조(계약기간) ② 갑과 을은 서면 합의로 계약기간을 연장할 수 있다.",
    ]  # the first line keeps its own label; "1. 갑:" is too short to match on
    chunk = Record(
        id="d:#1", doc_id="d", kind="document", doc="안내", article_no=None,
        article_title=None, text="휴가는 미리 신청한다.\n사유를 적는다.", position=1,
    )  # fmt: skip
    assert paragraphs(chunk) == []


def test_the_best_paragraph_scores_the_article(tmp_path: Path) -> None:
    inner = CountingEmbedder()
    cached = CachedEmbedder(inner, tmp_path / "e.sqlite")
    query = cached.embed_documents([paragraphs(ARTICLE)[1]])[0]  # exactly paragraph ②
    [(rid, score)] = paragraph_list(cached, [ARTICLE], query)
    assert rid == ARTICLE.id and np.isclose(score, 1.0)
    assert paragraph_list(inner, [ARTICLE], query) == []  # no cache: no per-search embedding


def test_indexing_embeds_paragraphs_once_and_search_reads_them(tmp_path: Path) -> None:
    inner = CountingEmbedder()
    col = open_collection(
        "p", Settings(data_dir=tmp_path), store="faiss",
        embedder=CachedEmbedder(inner, tmp_path / "e.sqlite"),
    )  # fmt: skip
    path, kind = SAMPLES["software_dev"]
    doc_id = col.add_document(path, kind=kind)
    records = col.store.doc_records(doc_id)
    wanted = {r.text for r in records} | {p for r in records for p in paragraphs(r)}
    assert set(inner.embedded) == wanted and len(wanted) > 2 * len(records)
    before = len(inner.embedded)
    hits = col.search("계약기간 연장은 언제까지 알려야 해?", 5)
    assert not set(inner.embedded[before:]) & wanted  # the query only: no passage again
    assert any("paragraph" in h.ranks for h in hits)


def test_a_detail_question_finds_its_article_with_paragraphs_on(
    tmp_path: Path, e5_embedder: Embedder
) -> None:
    settings = Settings(data_dir=tmp_path)
    col = open_collection("d", settings, store="memory", embedder=e5_embedder, dense=True)
    path, kind = SAMPLES["software_dev"]
    col.add_document(path, kind=kind)
    [best, *_] = col.search("개발자 명단은 언제까지 줘야 해?", 3)
    assert best.article_no == "제8조" and best.ranks["paragraph"] == 1  # ① 7일 이내 … 명단
    off = Settings(data_dir=tmp_path, search=SearchSettings(paragraph_weight=0))
    plain = open_collection("d2", off, store="memory", embedder=e5_embedder, dense=True)
    plain.add_document(path, kind=kind)
    assert all("paragraph" not in h.ranks for h in plain.search("개발자 명단 제출", 3))
