"""The contract parser on the forms Korean contracts are written in."""

from __future__ import annotations

from pathlib import Path

import pytest

from dure.documents import parse_contract

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"

MIXED = """\
# 물품 공급 계약서

주식회사 가람(이하 "갑")과 주식회사 나래(이하 "을")는 다음과 같이 계약한다.

제1장 총칙

제1조 (목적) 이 계약은 물품 공급 조건을 정한다.
제2조(정의) 이 계약에서 쓰는 말의 뜻은 다음과 같다.
1. "물품"이란 별표 1의 품목을 말한다.
2. "납기"란 물품을 인도할 날을 말한다.
제 3 조 (납품)
① 을은 납기까지 물품을 갑의 창고에 납품한다.
② 납품 장소의 변경은 제7조에 따른 통지로 한다.
제7조에 따른 통지가 없으면 종전 장소로 한다.
제3조의2(분할 납품) ① 을은 갑의 승인을 받아 분할 납품할 수 있다.
② 전조 제1항의 납기는 분할된 각 납품에도 적용된다.
**제4조【검사】** 갑은 납품일부터 7일 안에 검사한다. 이 조 제2항은 두지 않는다.
제5조 삭제
제7조 (통지) 통지는 서면으로 하며 다음 조의 방법을 따른다.
제8조 (통지 방법) 통지는 등기우편 또는 전자우편으로 한다.

부 칙

제1조(시행일) 이 계약은 서명한 날부터 효력이 있다.

이 계약의 성립을 증명하기 위하여 2부를 작성하여 서명 날인한 후 각 1부씩 보관한다.

2025년 1월 2일
갑: 주식회사 가람 대표이사 김가람 (인)
을: 주식회사 나래 대표이사 이나래 (인)

[별표 1] 공급 품목
| 품목 | 수량 |
| 사무용 의자 | 40 |
"""


@pytest.fixture(scope="module")
def mixed():
    return parse_contract(MIXED, "mixed")


def test_title_preamble_and_every_heading_form(mixed) -> None:
    assert mixed.title == "물품 공급 계약서"
    assert mixed.preamble.startswith("주식회사 가람")
    assert [a.no for a in mixed.articles] == [
        "제1조",
        "제2조",
        "제3조",
        "제3조의2",
        "제4조",
        "제5조",
        "제7조",
        "제8조",
    ]
    titles = {a.no: a.title for a in mixed.articles}
    assert titles["제1조"] == "목적" and titles["제2조"] == "정의"
    assert titles["제3조"] == "납품" and titles["제3조의2"] == "분할 납품"
    assert titles["제4조"] == "검사" and titles["제5조"] == "삭제"
    assert mixed.articles[3].number == 3 and mixed.articles[3].sub == 2


def test_a_line_that_cites_an_article_is_not_a_heading(mixed) -> None:
    art = mixed.get("제3조")
    assert art is not None
    assert "제7조에 따른 통지가 없으면" in art.text
    assert [p.number for p in art.paragraphs] == [1, 2]


def test_paragraphs_items_and_inline_bodies(mixed) -> None:
    defs = mixed.get("제2조")
    assert [i.label for i in defs.items] == ["1", "2"]
    assert defs.items[0].text.startswith('"물품"이란')
    assert mixed.get("제1조").body == "이 계약은 물품 공급 조건을 정한다."
    assert mixed.get("제3조의2").paragraphs[1].text.startswith("전조 제1항의 납기")
    assert mixed.get("제1조").chapter == "제1장 총칙"


def test_references_resolve_explicit_previous_next_and_ignore_this_article(mixed) -> None:
    assert mixed.get("제3조").references == ["제7조"]
    assert mixed.get("제3조의2").references == ["제3조"]  # 전조
    assert mixed.get("제4조").references == []  # "이 조 제2항" is the article itself
    assert mixed.get("제7조").references == ["제8조"]  # 다음 조


def test_a_range_of_articles_cites_every_article_in_it() -> None:
    law = parse_contract(
        "형법\n"
        "제287조(미성년자의 약취, 유인) 미성년자를 약취한 사람은 10년 이하의 징역에 처한다.\n"
        "제288조(추행 등 목적 약취, 유인 등) 추행 목적으로 사람을 약취한 사람은 처벌한다.\n"
        "제289조(인신매매) 사람을 매매한 사람은 7년 이하의 징역에 처한다.\n"
        "제289조의2(국외 이송) 사람을 국외에 이송한 사람은 처벌한다.\n"
        "제294조(미수범) 제287조부터 제289조까지, 제289조의2의 미수범은 처벌한다.\n"
        "제295조(벌금의 병과) 제288조 내지 제289조의2의 죄에는 벌금을 병과할 수 있다.\n"
        "제296조(예비) 제287조~제900조의 죄를 범할 목적으로 예비한 사람은 처벌한다.\n",
        "law",
    )
    assert law.get("제294조").references == ["제287조", "제288조", "제289조", "제289조의2"]
    assert law.get("제295조").references == ["제288조", "제289조", "제289조의2"]
    # An end the document lacks: the two ends as written, nothing guessed between them.
    assert law.get("제296조").references == ["제287조", "제900조"]


def test_supplementary_signature_and_appendix_are_apart(mixed) -> None:
    assert [a.no for a in mixed.supplementary] == ["제1조"]
    assert mixed.get("제1조").title == "목적"  # 부칙 제1조 does not replace it
    assert mixed.signature is not None
    assert mixed.signature.startswith("이 계약의 성립을 증명")
    assert "대표이사 이나래" in mixed.signature
    assert "서명 날인" not in mixed.get("제8조").text
    [appendix] = mixed.appendices
    assert appendix.label == "별표1" and appendix.title == "공급 품목"
    assert "사무용 의자" in appendix.text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("제5조", "제5조"),
        ("5조 내용 알려줘", "제5조"),
        ("제 5 조", "제5조"),
        ("5번째 조항", "제5조"),
        ("다섯 번째 조항", "제5조"),
        ("제3조의2", "제3조의2"),
        ("3조의 2는?", "제3조의2"),
        ("제 3 조 의 2", "제3조의2"),
    ],
)
def test_find_by_number_from_user_forms(mixed, text: str, expected: str) -> None:
    article = mixed.find_by_number(text)
    assert article is not None and article.no == expected


def test_find_by_number_missing_or_absent(mixed) -> None:
    assert mixed.find_by_number("제6조") is None
    assert mixed.find_by_number("납품 조항") is None


def test_find_by_title_tells_cancellation_from_termination() -> None:
    contract = parse_contract((EXAMPLES / "contracts" / "software_dev.md").read_text(), "sw")
    [(rescission, score)] = contract.find_by_title("계약의 해제")
    assert rescission.no == "제21조" and score == 1.0
    assert [a.no for a, _ in contract.find_by_title("계약 해지 조항")] == ["제22조"]
    assert [a.no for a, _ in contract.find_by_title("해지")] == ["제22조"]
    assert contract.find_by_title("비밀 유지")[0][0].no == "제18조"
    assert contract.find_by_title("하도급에 관한 규정")[0][0].no == "제11조"
    assert contract.find_by_title("우주여행") == []


def test_a_text_without_articles_is_all_preamble() -> None:
    contract = parse_contract("회의록\n\n오늘은 예산을 논의했다. 다음 회의는 금요일이다.", "memo")
    assert contract.articles == []
    assert "예산" in contract.preamble


@pytest.mark.parametrize(
    ("name", "minimum"),
    [
        ("contracts/software_dev.md", 20),
        ("contracts/lease.md", 15),
        ("contracts/employment.md", 15),
        ("standard/software_dev_standard.md", 20),
    ],
)
def test_sample_contracts_parse_completely(name: str, minimum: int) -> None:
    contract = parse_contract((EXAMPLES / name).read_text(encoding="utf-8"), name)
    numbers = [a.number for a in contract.articles]
    assert len(numbers) >= minimum
    assert numbers == sorted(numbers)
    assert all(a.title for a in contract.articles)
    assert contract.signature  # every sample ends with a signature block
    assert not any("(인)" in a.text or "(서명)" in a.text for a in contract.articles)


def test_software_contract_has_the_articles_the_demo_needs() -> None:
    contract = parse_contract(
        (EXAMPLES / "contracts" / "software_dev.md").read_text(encoding="utf-8"), "sw"
    )
    titles = {a.title for a in contract.articles}
    assert {"하도급", "지체상금", "계약의 해제", "계약의 해지"} <= titles
    assert contract.get("제5조") is not None and contract.get("제5조의2") is not None


def test_a_dated_line_inside_an_article_does_not_end_the_articles() -> None:
    text = (
        "# 용역 계약서\n제1조(목적) 이 계약은 용역에 관한 것이다.\n"
        "제2조(대금) 대금은 다음과 같이 지급한다.\n선금\n36,000,000원\n2025년 3월 31일\n"
        "잔금\n2025년 9월 30일\n제3조(지체상금) 을은 1일마다 1,000분의 2.5를 낸다.\n"
        "제4조(해지) 갑은 해지할 수 있다.\n\n2025년 1월 2일\n갑: 주식회사 두레 (인)\n"
    )
    c = parse_contract(text, "t")
    assert [a.no for a in c.articles] == ["제1조", "제2조", "제3조", "제4조"]
    assert "2025년 9월 30일" in c.get("제2조").text
    assert c.signature is not None and "주식회사 두레" in c.signature
