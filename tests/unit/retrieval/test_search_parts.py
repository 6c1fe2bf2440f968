"""The pieces of search: Kiwi tokens, the thesaurus, BM25, fusion, the e5 embedder."""

from __future__ import annotations

import numpy as np

from dure.retrieval.associations import query_terms
from dure.retrieval.fusion import fuse, score_fusion, weighted_rrf
from dure.retrieval.keyword import BM25Index
from dure.retrieval.thesaurus import expand_query
from dure.retrieval.tokenize import kiwi_tokens, whitespace_tokens
from dure.settings import SearchSettings


def test_kiwi_keeps_content_morphemes_and_drops_particles() -> None:
    assert kiwi_tokens("계약을 해지할 수 있다") == ["계약", "해지", "있"]
    assert whitespace_tokens("계약을 해지할 수 있다.") == ["계약을", "해지할", "수", "있다"]


def test_a_question_also_searches_the_nouns_it_writes_together() -> None:
    """Kiwi keeps "통신비" whole in a table cell but splits it in a question: the question
    searches for the parts and the compound, the index keeps Kiwi's words."""
    assert kiwi_tokens("| 통신비 | 월 30,000원 |") == ["통신비", "월", "30,000", "원"]
    tokens, _ = query_terms("재택근무할 때 통신비 나와?", thesaurus=False, associations=False)
    # Nouns only: the verb "나오" is never glued on.
    assert sorted(tokens) == sorted(
        ["재택", "근무", "재택근무", "때", "통신", "비", "통신비", "나오"]
    )
    spaced, _ = query_terms("통신 비용", thesaurus=False, associations=False)
    assert "통신비용" not in spaced  # words the user spaced stay apart
    assert kiwi_tokens("재택근무할 때 통신비 나와?") == ["재택", "근무", "때", "통신", "비", "나오"]


def test_thesaurus_matches_conjugated_everyday_words() -> None:
    assert "하도급" in expand_query("다른 회사한테 일을 넘겨서 맡겨도 돼?")
    assert "하도급" in expand_query("하청업체 써도 돼?")  # inside a compound
    assert "해고" in expand_query("회사가 나를 잘라도 돼?")
    assert "지체상금" in expand_query("납품이 늦어지면 벌금 있어?")
    assert "차임" in expand_query("월세 밀리면?")
    assert "면책" in expand_query("우리 탓이 아닌데도 물어줘야 해?")
    assert "멸실" in expand_query("맡긴 물건이 부서져서 왔어요")
    assert "장애" in expand_query("프로그램이 먹통이면 누구한테 연락해?")
    assert "연체" in expand_query("돈을 늦게 내면 이자 붙어?")
    assert expand_query("제5조의 내용") == []


def test_bm25_ranks_and_respects_the_mask() -> None:
    index = BM25Index([["하도급", "승인"], ["지체상금", "납기"], ["하도급", "하도급", "책임"]])
    assert [i for i, _ in index.search(["하도급"], 3)] == [2, 0]
    mask = np.array([True, True, False])
    assert [i for i, _ in index.search(["하도급"], 3, mask)] == [0]
    assert index.search(["없는말"], 3) == []
    assert BM25Index([]).search(["하도급"], 3) == []


def test_weighted_rrf_lets_a_weight_decide() -> None:
    keyword, dense = ["a", "b", "c"], ["b", "c", "a"]
    assert weighted_rrf([(keyword, 1.0), (dense, 1.0)])[0][0] == "b"
    assert weighted_rrf([(keyword, 3.0), (dense, 1.0)])[0][0] == "a"
    assert [i for i, _ in weighted_rrf([(keyword, 0.0), (dense, 1.0)])] == dense


def test_score_fusion_weighs_how_clearly_each_list_prefers_an_item() -> None:
    keyword = [("a", 12.0), ("b", 11.5), ("c", 2.0)]  # a and b nearly tied, c far behind
    dense = [("b", 0.90), ("c", 0.60), ("a", 0.30)]  # b clearly first
    assert [i for i, _ in score_fusion([(keyword, 1.0), (dense, 1.0)], "minmax")][0] == "b"
    assert [i for i, _ in score_fusion([(keyword, 1.0), (dense, 0.0)], "zscore")] == ["a", "b", "c"]
    assert score_fusion([([("x", 3.0)], 1.0)], "minmax") == [("x", 1.0)]  # one result: the best
    assert score_fusion([([], 1.0)], "zscore") == []


def test_fuse_follows_the_settings() -> None:
    lists = {"keyword": [("a", 5.0), ("b", 1.0)], "dense": [("b", 0.9), ("a", 0.1)]}
    rrf = SearchSettings(fusion="rrf", keyword_weight=3.0, dense_weight=1.0)
    assert fuse(lists, rrf)[0][0] == "a"
    dense_first = SearchSettings(fusion="zscore", keyword_weight=1.0, dense_weight=3.0)
    assert fuse(lists, dense_first)[0][0] == "b"


def test_e5_vectors_are_unit_length_and_meaningful(e5_embedder) -> None:
    vecs = e5_embedder.embed_documents(
        ["하도급을 금지한다", "하청을 주면 안 된다", "월세는 매월 낸다"]
    )
    assert vecs.shape == (3, 384) and vecs.dtype == np.float32
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-4)
    assert vecs[0] @ vecs[1] > vecs[0] @ vecs[2]
    assert e5_embedder.embed_documents([]).shape == (0, 384)
    # e5 reads "query: " and "passage: " differently: a question is not embedded as a passage.
    query = e5_embedder.embed_query("하청 줘도 돼?")
    assert not np.allclose(query, e5_embedder.embed_documents(["하청 줘도 돼?"])[0], atol=1e-3)
    assert query @ vecs[0] > query @ vecs[2]
