"""Tables written out row by row with their column names (`dure.documents.tables`)."""

from __future__ import annotations

from dure.documents.tables import markdown_tables

PROSE = "재택근무 지원 비용은 다음과 같다."


def test_rows_under_a_header_are_written_with_its_column_names() -> None:
    table = "| 항목 | 지원 금액 | 지급 방법 |\n| 통신비 | 월 30,000원 | 급여와 함께 지급 |"
    assert markdown_tables(f"{PROSE}\n{table}\n끝.") == (
        f"{PROSE}\n\n\n| 항목 | 지원 금액 | 지급 방법 |\n\n"
        "통신비: 지원 금액 월 30,000원, 지급 방법 급여와 함께 지급\n\n\n끝."
    )


def test_a_separator_row_marks_the_header_whatever_it_holds() -> None:
    table = "| 버튼 | 3초 이상 누를 때 |\n|---|:---:|\n| 예약 | 예약 취소 |\n| 잠금 | |"
    out = markdown_tables(table)
    assert "|---" not in out
    # An empty cell is left out; a row of a label alone stays that label.
    assert out.split("\n\n")[1:4] == [
        "| 버튼 | 3초 이상 누를 때 |",
        "예약: 3초 이상 누를 때 예약 취소",
        "잠금",
    ]


def test_a_table_without_a_header_or_with_odd_rows_keeps_what_it_cannot_name() -> None:
    no_header = "| 1회차 | 30% | 계약 시 |\n| 2회차 | 70% | 검수 후 |"
    assert markdown_tables(no_header) == no_header
    sentence = "| 갑은 대금을 지급한다. | 을은 납품한다. |\n| 1 | 2 |"
    assert markdown_tables(sentence) == sentence
    for lone in ("|---|---|", "| 구분 | 금액 |\n|---|---|", "| 한 줄 |"):
        assert markdown_tables(lone) == lone
    odd = "| 구분 | 금액 |\n| 선금 | 100만원 | 비고 |\n| 잔금 | 200만원 |"
    assert markdown_tables(odd).split("\n\n")[1:4] == [
        "| 구분 | 금액 |",
        "| 선금 | 100만원 | 비고 |",
        "잔금: 금액 200만원",
    ]
