"""A PDF's page texts tidied: running headers, footers and page numbers out, lines the page
cut joined back — with a space only where Korean spacing puts one — each paragraph, heading
and table row apart (a blank line between them)."""

from __future__ import annotations

from dure.documents.pdftext import tidy_pages

HEADER = "11/30/26, 1:11 AM 유지보수 계약서"


def page(body: list[str], number: int, total: int = 2) -> str:
    """A page as a browser prints it: the body, then its header and footer."""
    return "\n".join([*body, HEADER, f"file:///tmp/계약서.html {number}/{total}"])


def test_running_lines_and_page_numbers_go_and_a_cut_word_is_whole_again() -> None:
    first = page(
        [
            "유지보수 계약서",
            "제5조 (장애 대응)",
            "① 을은 장애 접수 후 1시간 이내에 원격으로 대응을 시작하여야 하며, 긴급 장애의 경우 4시",
        ],
        1,
    )
    second = page(
        ["간 이내에 현장에 도착하여야 한다.", "② 긴급 장애란 출고가 멈춘 장애를 말한다.", "- 2 -"],
        2,
    )
    assert tidy_pages([first, second]).split("\n\n") == [
        "유지보수 계약서",
        "제5조 (장애 대응)",
        "① 을은 장애 접수 후 1시간 이내에 원격으로 대응을 시작하여야 하며, 긴급 장애의 경우 4시간 "
        "이내에 현장에 도착하여야 한다.",
        "② 긴급 장애란 출고가 멈춘 장애를 말한다.",
    ]


def test_a_join_gets_a_space_where_korean_spacing_puts_one() -> None:
    full = "가" * 40
    text = tidy_pages(
        [
            "\n".join(
                [
                    f"{full} 필요한 사항을 정함을 목적",
                    "으로 한다. 계약 만료 1개월 전까지 서면 이의가 없으면 같은 조건으로 자동 연장되고 어느",
                    "일방이 해지를 원하면 해지일까지의 대금을 일할 계산하여 정산하고, Service Level",
                    "Agreement는 별첨으로 한다.",
                ]
            )
        ]
    )
    assert "정함을 목적으로 한다" in text
    assert "어느 일방이" in text
    assert "Service Level Agreement는" in text
    assert "\n" not in text


def test_line_breaks_the_author_made_stay() -> None:
    lines = [
        "제1조 (목적) 이 계약은 물류관리시스템의 유지보수 업무를 위탁하는 데 필요한 사항을 정한다",
        "제2조 (대금) 월 대금은 금 사백오십만원으로 하고, 매월 말일까지 을의 지정 계좌로 지급하며",
        "① 지연되면 연 12퍼센트의 지연이자를 가산하여 지급하고, 그 밖의 비용은 갑과 을이 협의하여",
        "1. 장애 처리와 정기 점검과 보안 패치 적용과 경미한 기능 개선을 유지보수 범위로 하며",
        "가. 신규 기능 개발과 하드웨어 교체는 유지보수 범위에 포함되지 아니하며 별도로 정한다.",
        "짧은 줄",
        "다음 문단은 짧은 줄 뒤에 오므로 앞 줄과 이어 붙이지 않는다는 것을 확인하는 긴 문장입니다",
    ]
    assert tidy_pages(["\n".join(lines)]).split("\n\n") == lines


def test_one_page_keeps_its_lines_and_a_lone_line_is_not_running() -> None:
    text = "계약서\n제1조 (목적) 이 계약은 용역에 관한 것이다.\n3"
    assert tidy_pages([text]) == "계약서\n\n제1조 (목적) 이 계약은 용역에 관한 것이다."
    pages = ["제1조 (목적) 용역에 관한 것이다.", "제2조 (대금) 대금은 100만원이다."]
    assert tidy_pages(pages) == "\n\n".join(pages)


def test_a_flattened_table_has_each_row_written_with_its_column_names() -> None:
    text = tidy_pages(
        [
            "\n".join(
                [
                    "교통비는 실비로 정산한다.",
                    "구분 숙박비(1박) 일비(1일)",
                    "임원 150,000원 50,000원",
                    "팀장 100,000원 40,000원",
                    "숙박비는 한도 내에서 실비로 지급한다.",
                    "위 계약을 증명함",  # one dated line under words is no table
                    "2026년 12월 15일",
                ]
            )
        ]
    )
    assert text.split("\n\n") == [
        "교통비는 실비로 정산한다.",
        "구분 숙박비(1박) 일비(1일)",
        "임원: 숙박비(1박) 150,000원, 일비(1일) 50,000원",
        "팀장: 숙박비(1박) 100,000원, 일비(1일) 40,000원",
        "숙박비는 한도 내에서 실비로 지급한다.",
        "위 계약을 증명함",
        "2026년 12월 15일",
    ]
