"""Korean number words (`dure.korean.numbers`): one table for the slot parser and article refs."""

from __future__ import annotations

import re

import pytest

from dure.korean.numbers import (
    AMOUNT,
    COUNT,
    NATIVE_ORDINALS,
    amount_value,
    count_value,
    sino_korean_number,
)


def test_sino_korean_numerals() -> None:
    cases = {"오": 5, "십": 10, "십오": 15, "이십일": 21, "백": 100, "백삼": 103, "천이백": 1200}
    assert {w: sino_korean_number(w) for w in cases} == cases
    assert sino_korean_number("십백") is None  # units must fall
    assert sino_korean_number("오오") is None
    assert sino_korean_number("") is None


@pytest.mark.parametrize(
    ("word", "n"),
    [
        ("첫", 1),
        ("첫째", 1),
        ("다섯", 5),
        ("열다섯", 15),
        ("스무", 20),
        ("스물한", 21),
        ("서른아홉", 39),
    ],
)
def test_native_ordinal_stems(word: str, n: int) -> None:
    assert NATIVE_ORDINALS[word] == n


@pytest.mark.parametrize(
    ("token", "n"), [("두", 2), ("열두", 12), ("12", 12), ("서너", 4), ("스물", 20), ("없음", None)]
)
def test_counts(token: str, n: int | None) -> None:
    assert count_value(token) == n


def test_a_count_pattern_prefers_the_longest_word() -> None:
    found = re.match(COUNT, "열두 명")
    assert found is not None and found.group(0) == "열두"


@pytest.mark.parametrize(
    ("text", "won"),
    [
        ("2만 5천", 25_000),
        ("만오천", 15_000),
        ("1.5만", 15_000),
        ("25,000", 25_000),
        ("8천", 8_000),
    ],
)
def test_amounts_of_won(text: str, won: int) -> None:
    assert re.fullmatch(AMOUNT, text)
    assert amount_value(text) == won


def test_a_run_of_digits_no_amount_has_is_no_amount() -> None:
    assert amount_value("1" * 5000) is None  # not a ValueError from int()
    assert amount_value("1" * 400 + "만") is None  # not an OverflowError from float('inf')
    assert amount_value("999" + "0" * 12) == 999 * 10**12
