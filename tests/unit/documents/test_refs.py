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
        ("8조 2항에 따르면 언제까지야?", ["제8조"]),  # a paragraph counts as its article
        ("21조 12항", ["제21조"]),
        ("매출 1조 2000억 원", []),
        # Sino-Korean numerals and native ordinals, as people say them
        ("제십오조 보여줘", ["제15조"]),
        ("제 이십일 조는?", ["제21조"]),
        ("제백삼조의이", ["제103조의2"]),
        ("십사조 찾아 줘", ["제14조"]),
        ("이십일조는?", ["제21조"]),
        ("십조랑 십일조 차이", ["제10조", "제11조"]),
        ("구십구조랑 백조", ["제99조"]),
        ("백삼조의2 보여줘", ["제103조의2"]),
        ("열다섯 번째 조항 내용", ["제15조"]),
        ("오조", ["제5조"]),  # one syllable, when it is the whole question
        ("칠조는?", ["제7조"]),
        ("팔조에 뭐라고 나와?", ["제8조"]),
        ("다섯번째 조항 뭐야", ["제5조"]),
        ("스물한 번째 조", ["제21조"]),
        ("첫째 조항", ["제1조"]),
        ("5번 조항", ["제5조"]),
        ("민법 제1118조", ["제1118조"]),
        # words that only look like numbers
        ("제일 조건이 좋은 곳", []),
        ("제삼자에게 넘겨도 돼?", []),
        ("십오조 원 규모", []),
        ("이십조원 넘는 시장", []),
        ("삼십조 규모", []),
        ("십조 원짜리 사업", []),
        ("구조가 어떻게 돼?", []),
        ("사조 조항 말고", []),
        ("백조 그림", []),
        ("오조 원이면 얼마야", []),
        ("예술 사조 알려줘", []),
        ("일조량 좋은 집", []),
    ],
)
def test_extract_article_refs(question: str, refs: list[str]) -> None:
    assert extract_article_refs(question) == refs


def test_numbers_keep_sub_articles_apart() -> None:
    [plain, sub] = find_article_numbers("제5조 제5조의2")
    assert (plain.number, plain.sub, sub.number, sub.sub) == (5, None, 5, 2)
    assert plain.key < sub.key
