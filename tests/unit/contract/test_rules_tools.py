"""Rule-based suggestions, sufficiency and citations; the four tools over a library."""

from __future__ import annotations

import pytest
from contract_harness import CONTRACT, STANDARD, FakeLibrary

from dure.agents.contract import rules
from dure.agents.contract.tools import build_registry
from dure.documents.contract import parse_contract

contract = parse_contract(CONTRACT, "c1")


def names(calls):
    return [(c["name"], c["args"]) for c in calls]


def test_article_number_suggests_lookup_by_index():
    assert names(rules.suggest_tools("제5조랑 7조 알려줘", contract)) == [
        ("get_article_by_index", {"article_no": "제5조"}),
        ("get_article_by_index", {"article_no": "제7조"}),
    ]


def test_title_words_suggest_lookup_by_title():
    assert names(rules.suggest_tools("계약 해지하려면?", contract)) == [
        ("get_article_by_title", {"title": "계약의 해지"})
    ]
    assert names(rules.suggest_tools("손해 배상 범위는?", contract)) == [
        ("get_article_by_title", {"title": "손해배상"})
    ]


def test_short_question_close_to_a_title_suggests_it():
    lease = parse_contract("제9조(전대 및 양도의 제한) 임차인은 전대할 수 없다.", "l")
    assert names(rules.suggest_tools("전대 제한", lease)) == [
        ("get_article_by_title", {"title": "전대 및 양도의 제한"})
    ]
    assert rules.is_pure_lookup("전대 제한", lease, rules.suggest_tools("전대 제한", lease))
    # Close spelling without a shared word is no title ("정리" is not "정의").
    defined = parse_contract("제2조(정의) 용어의 뜻은 다음과 같다.", "d")
    assert rules.suggest_tools("그 참조항목들 내용 정리해서 보여줘봐", defined) == []
    # A long question is never taken for a title by fuzzy matching.
    assert rules.suggest_tools("전대를 하려면 누구의 동의를 받아야 하고 제한은 뭐야?", lease) == []


def test_question_without_names_is_searched_as_asked():
    assert names(rules.suggest_tools("돈은 언제 받아?", contract, search_fallback=True)) == [
        ("hybrid_search", {"query": "돈은 언제 받아?"})
    ]


def test_standard_mention_suggests_the_standard_contract_by_topic():
    calls = names(rules.suggest_tools("제3조를 표준계약서와 비교해줘", contract))
    assert calls[0] == ("get_article_by_index", {"article_no": "제3조"})
    name, args = calls[1]
    assert name == "lookup_standard_contract" and args["query"].startswith("대금 지급")


def test_no_suggestion_for_plain_questions():
    assert rules.suggest_tools("돈은 언제 받아?", contract) == []


@pytest.mark.parametrize(
    ("question", "pure"),
    [
        ("제5조 내용이 뭐야?", True),
        ("제 5 조 좀 요약해 줄래?", True),
        ("5조 설명해 주세요", True),
        ("제3조를 표준계약서와 비교해줘", True),
        ("손해배상 조항 보여줘", True),
        ("제5조에 따른 위약금은 얼마야?", False),
        ("제7조로 해지하면 대금은 어떻게 돼?", False),
    ],
)
def test_pure_lookup(question, pure):
    suggestions = rules.suggest_tools(question, contract)
    assert rules.is_pure_lookup(question, contract, suggestions) is pure


def test_rule_sufficiency_needs_every_requested_article():
    assert rules.rule_sufficiency("제5조 내용이 뭐야?", ["제5조"])
    assert rules.rule_sufficiency("제5조에 따른 위약금은?", ["제5조", "제3조"])  # + a search
    assert rules.rule_sufficiency("제5조와 제7조 비교", ["제5조", "제3조"]) is None
    assert rules.rule_sufficiency("제5조 내용이 뭐야?", []) is None
    assert rules.rule_sufficiency("위약금은?", ["제5조"]) is None
    assert rules.rule_sufficiency("제3조를 표준계약서와 비교", ["제3조"]) is None
    assert rules.rule_sufficiency("제3조를 표준계약서와 비교", ["제3조", "표준계약서 제4조"])
    # By title: the articles whose titles the question names.
    assert rules.rule_sufficiency("손해배상 조항", ["제8조"], contract) == (
        "질문에 나온 제목(손해배상)의 조항(제8조)을 모두 조회했습니다."
    )  # not "지정한": the user named a subject, which an article's title matched
    assert rules.rule_sufficiency("제5조 내용이 뭐야?", ["제5조"]) == (
        "질문이 번호로 지정한 조항(제5조)을 모두 조회했습니다."
    )
    assert rules.rule_sufficiency("손해배상 조항", ["제8조", "제7조"], contract)
    assert rules.rule_sufficiency("손해배상 조항", ["제7조"], contract) is None


def _info(*sources):
    return [{"ok": True, "sources": list(sources)}]


def test_cited_sources_follow_the_answer():
    c5 = {"doc": "계약서", "kind": "contract", "article_no": "제5조"}
    c4 = {"doc": "계약서", "kind": "contract", "article_no": "제4조"}
    s4 = {"doc": "표준", "kind": "standard", "article_no": "제4조"}
    got = rules.cited_sources("제5조에 따르면 … 표준계약서 제4조는 …", _info(c5, c4, s4))
    assert [(s.kind, s.article_no) for s in got] == [("contract", "제5조"), ("standard", "제4조")]
    # No number cited: the article whose words the answer has, else the first retrieved.
    late = {**c4, "text": "을이 납기를 지키지 못하면 지체일수 1일당 지체상금을 갑에게 지급한다."}
    said = "Late delivery costs a penalty: 지체일수 1일당 지체상금을 지급한다."
    assert [s.article_no for s in rules.cited_sources(said, _info(c5, late))] == ["제4조"]
    assert [s.article_no for s in rules.cited_sources("잘 모르겠습니다.", _info(c5, s4))] == [
        "제5조"
    ]
    # 제5조의2 is not 제5조.
    assert [s.article_no for s in rules.cited_sources("제5조의2를 보세요", _info(c4, c5))] == [
        "제4조"
    ]


@pytest.fixture
def registry():
    lib = FakeLibrary()
    cid = lib.add_document(CONTRACT, kind="contract")
    sid = lib.add_document(STANDARD, kind="standard")
    return lib, build_registry(lib, cid, sid), build_registry(lib, cid, None)


async def test_get_article_by_index(registry):
    _, reg, _ = registry
    result = await reg.run("get_article_by_index", {"article_no": "5조"})
    assert result.ok and "지체상금" in result.content
    assert result.sources[0].article_no == "제5조" and result.sources[0].kind == "contract"
    assert result.data["articles"][0]["references"] == ["제3조"]
    missing = await reg.run("get_article_by_index", {"article_no": "제99조"})
    assert missing.ok and not missing.sources and "제1조 (목적)" in missing.content


async def test_get_article_by_title_and_search(registry):
    _, reg, _ = registry
    result = await reg.run("get_article_by_title", {"title": "해지"})
    assert [s.article_no for s in result.sources] == ["제7조"]
    hits = await reg.run("hybrid_search", {"query": "검수 완료"})
    assert hits.ok and {"제3조", "제6조"} <= {s.article_no for s in hits.sources}
    assert all(s.kind == "contract" for s in hits.sources)


async def test_standard_contract_lookup(registry):
    lib, bound, unbound = registry
    result = await bound.run("lookup_standard_contract", {"query": "계약 해지 시정"})
    assert result.ok and result.sources[0].kind == "standard"
    assert result.content.startswith("[표준계약서]")
    by_no = await bound.run("lookup_standard_contract", {"query": "-", "article_no": "제9조"})
    assert by_no.sources[0].article_title == "계약의 해지"
    # Not bound: any indexed standard contract is searched.
    assert (await unbound.run("lookup_standard_contract", {"query": "해지"})).ok
    empty = FakeLibrary()
    cid = empty.add_document(CONTRACT, kind="contract")
    none = await build_registry(empty, cid).run("lookup_standard_contract", {"query": "해지"})
    assert not none.ok and "--standard" in none.content


def _searched(*scores: float, kind: str = "contract", tool: str = "hybrid_search") -> list[dict]:
    sources = [
        {"kind": kind, "article_no": f"제{i}조", "score": s} for i, s in enumerate(scores, 1)
    ]
    return [{"tool": tool, "ok": True, "sources": sources}]


def test_a_clear_lead_in_the_search_settles_the_question() -> None:
    assert "제1조" in (rules.clear_top_hit(_searched(4.8, 3.4, 3.3), 1.2) or "")
    assert rules.clear_top_hit(_searched(4.8, 4.0), 1.2) is None  # too close to call
    assert rules.clear_top_hit(_searched(4.8), 1.2) is None  # nothing to lead
    assert rules.clear_top_hit(_searched(4.8, 3.0, kind="standard"), 1.2) is None
    assert rules.clear_top_hit(_searched(4.8, 3.0, tool="get_article_by_title"), 1.2) is None
    assert rules.clear_top_hit(_searched(4.8, 3.0), None) is None  # turned off


@pytest.mark.parametrize(
    ("question", "following", "expected"),
    [
        ("제5조 내용이 뭐야?", False, ["get_article_by_index"]),
        ("제5조에 따른 위약금은 얼마야?", False, ["get_article_by_index", "hybrid_search"]),
        ("돈은 언제 받아?", False, ["hybrid_search"]),
        ("그럼 그건 언제 받아?", True, []),
        ("그럼 제5조는?", True, ["get_article_by_index"]),
    ],
)
def test_first_round_is_decided_by_rule(question, following, expected):
    calls = rules.first_round(question, contract, following)
    assert [c["name"] for c in calls] == expected
    assert all(c["origin"] == "rule" for c in calls)
