"""Heading-aware chunking with a token budget and overlap."""

from __future__ import annotations

import pytest

from dure.documents import chunk_text, estimate_tokens

HANDBOOK = (
    """\
# 직원 안내서

## 휴가
연차는 입사 1년 후 15일이 주어진다. 반차는 오전과 오후로 나누어 쓸 수 있다.

병가는 연 10일까지 유급이다.

## 출장
"""
    + " ".join(f"출장비 규정 {i}번 항목은 교통비와 숙박비를 실비로 정산한다." for i in range(40))
    + """

## 복지
| 항목 | 금액 |
| 식대 | 20만원 |
"""
)


def test_chunks_never_span_sections_and_keep_their_heading() -> None:
    chunks = chunk_text(HANDBOOK, max_tokens=80, overlap_tokens=20)
    headings = [c.heading for c in chunks]
    assert headings[0] == "직원 안내서 > 휴가"
    assert "직원 안내서 > 출장" in headings and "직원 안내서 > 복지" in headings
    for c in chunks:
        if c.heading and c.heading.endswith("휴가"):
            assert "출장비" not in c.text
    assert [c.index for c in chunks] == list(range(len(chunks)))


def test_budget_is_respected_and_long_sections_overlap() -> None:
    chunks = [
        c
        for c in chunk_text(HANDBOOK, max_tokens=80, overlap_tokens=20)
        if "출장" in (c.heading or "")
    ]
    assert len(chunks) >= 3
    assert all(c.tokens <= 80 for c in chunks)
    for before, after in zip(chunks, chunks[1:], strict=False):
        last_sentence = before.text.split("\n")[-1]
        assert after.text.startswith(last_sentence) or last_sentence in after.text


def test_no_overlap_when_zero() -> None:
    chunks = [
        c
        for c in chunk_text(HANDBOOK, max_tokens=80, overlap_tokens=0)
        if "출장" in (c.heading or "")
    ]
    joined = "\n".join(c.text for c in chunks)
    assert joined.count("출장비 규정 7번 항목") == 1


def test_table_rows_stay_whole() -> None:
    [table] = [c for c in chunk_text(HANDBOOK) if (c.heading or "").endswith("복지")]
    assert "| 식대 | 20만원 |" in table.text.splitlines()


def test_one_huge_sentence_is_cut_to_the_budget() -> None:
    chunks = chunk_text("가" * 2000, max_tokens=100, overlap_tokens=0)
    assert len(chunks) > 5 and all(c.tokens <= 101 for c in chunks)
    assert "".join(c.text for c in chunks) == "가" * 2000


def test_estimate_tokens_counts_hangul_and_words() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("계약서") == 2
    assert estimate_tokens("hello world") == 2


def test_a_tiny_budget_is_refused() -> None:
    with pytest.raises(ValueError):
        chunk_text("본문", max_tokens=5)
