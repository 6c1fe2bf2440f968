"""Article numbers in users' questions."""

from __future__ import annotations

import pytest

from dure.documents import extract_article_refs, find_article_numbers


@pytest.mark.parametrize(
    ("question", "refs"),
    [
        ("제5조가 뭐야?", ["제5조"]),
        ("5조랑 7조 차이", ["제5조", "제7조"]),
        ("제 12 조 보여줘", ["제12조"]),
        ("제5조의2와 제5조", ["제5조의2", "제5조"]),
        ("3번째 조항 알려줘", ["제3조"]),
        ("조항 4번은?", ["제4조"]),
        ("세 번째 조항", ["제3조"]),
        ("제7조 제2항에 따라", ["제7조"]),
        ("제5조, 5조, 제 5 조", ["제5조"]),
        ("하도급 조항이 뭐야?", []),
        ("매출이 1조 원을 넘으면?", []),
        ("3조원 규모 계약", []),
    ],
)
def test_extract_article_refs(question: str, refs: list[str]) -> None:
    assert extract_article_refs(question) == refs


def test_numbers_keep_sub_articles_apart() -> None:
    [plain, sub] = find_article_numbers("제5조 제5조의2")
    assert (plain.number, plain.sub, sub.number, sub.sub) == (5, None, 5, 2)
    assert plain.key < sub.key
