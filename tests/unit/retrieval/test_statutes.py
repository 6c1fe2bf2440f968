"""Statutes are searched without the contract thesaurus; contracts keep it."""

from __future__ import annotations

from pathlib import Path

from dure.retrieval import open_collection
from dure.retrieval.statutes import is_statute
from dure.settings import Settings

ARTICLES = """제1조(대금의 지급) 매수인은 목적물을 받은 날에 대금을 지급하여야 한다.
제2조(금전의 반환) 돈을 빌린 사람은 약정한 날에 그 돈을 돌려주어야 한다.
"""
STATUTE = "# 물품매매법\n\n" + ARTICLES
CONTRACT = "# 물품 매매 계약서\n\n" + ARTICLES.replace("매수인은", "을은")
#: "돈" is an everyday word the thesaurus turns into 대금·지급·금액 (contract terms).
QUERY = "돈 언제 줘야 돼?"


def test_statutes_are_known_by_title_or_by_how_they_speak() -> None:
    assert is_statute("근로기준법", "")
    assert is_statute("하도급거래 공정화에 관한 법률", "")
    assert is_statute("형법 (제2편 각칙 발췌)", "")
    excerpt = "제250조(살인) 사람을 살해한 자는 사형, 무기 또는 5년 이상의 징역에 처한다.\n" * 3
    assert is_statute("criminal_excerpt", excerpt)  # no telling title: its wording decides
    assert not is_statute("물품 매매 계약서", CONTRACT)
    assert not is_statute("supply", "제1조(목적) 이 계약은 갑과 을의 거래를 정한다. 갑은 … 을은 …")
    assert not is_statute("", "")


def _articles(found: list[tuple[str, float]]) -> list[str]:
    return [rid.split(":")[1] for rid, _ in found]


def test_the_thesaurus_applies_to_contracts_but_not_to_statutes(tmp_path: Path) -> None:
    col = open_collection("statutes", Settings(data_dir=tmp_path), store="memory")
    statute = col.add_document(STATUTE, kind="contract", name="statute.md")
    contract = col.add_document(CONTRACT, kind="contract", name="contract.md")

    def keyword(doc_id: str | None, thesaurus: bool) -> list[str]:
        lists = col.ranked_lists(QUERY, 10, doc_id=doc_id, mode="keyword", thesaurus=thesaurus)
        return _articles(lists["keyword"])

    # In the contract "돈" finds the payment article through 대금·지급, not only the loan one.
    assert keyword(contract, False) == ["제2조"]
    assert keyword(contract, True)[0] == "제1조"
    # In the statute the everyday word stays as it was said.
    assert keyword(statute, True) == keyword(statute, False) == ["제2조"]
    # Over both documents (not only statutes) the thesaurus applies.
    assert "제1조" in keyword(None, True)
    col.close()


#: Two chapters with an article of the same title each; the crime is named only by the chapter.
CHAPTERS = """# 형법 발췌

## 제38장 절도와 강도의 죄

##### 제329조 (절도)
타인의 재물을 절취한 자는 6년 이하의 징역에 처한다.

##### 제342조 (미수범)
제329조 내지 제341조의 미수범은 처벌한다.

## 제39장 사기와 공갈의 죄

##### 제347조 (사기)
사람을 기망하여 재물의 교부를 받은 자는 10년 이하의 징역에 처한다.

##### 제352조 (미수범)
제347조 내지 제351조의 미수범은 처벌한다.

## 부칙

##### 제1조 (시행일)
이 법은 공포한 날부터 시행한다.
"""


def test_an_articles_keywords_carry_its_chapter_name(tmp_path: Path) -> None:
    col = open_collection("chapters", Settings(data_dir=tmp_path), store="memory")
    doc = col.add_document(CHAPTERS, kind="contract", name="criminal.md")

    def top(query: str) -> str:
        return _articles(col.ranked_lists(query, 10, mode="keyword")["keyword"])[0]

    assert top("사기 미수범도 처벌되나요?") == "제352조"
    assert top("강도 미수범도 처벌돼?") == "제342조"
    # The shown text stays as written; 부칙 is no part of the last chapter.
    attempt, supplement = col.store.records([f"{doc}:제352조", f"{doc}:부칙제1조"])
    assert "사기" not in attempt.text
    assert supplement.article_no == "부칙 제1조" and "사기" not in supplement.tokens
    col.close()
