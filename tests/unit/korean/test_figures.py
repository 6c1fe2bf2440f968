"""Figures compared by value: the Korean spellings of one amount or rate are one figure."""

from __future__ import annotations

import pytest

from dure.korean.figures import figures, unsupported, without_clock

CLAUSE = "지체일수 1일마다 계약금액의 1천분의 1.5에 해당하는 지체상금을 지급한다."


@pytest.mark.parametrize(
    ("answer", "source"),
    [
        ("하루 0.15%입니다", CLAUSE),
        ("하루 천분의 1.5입니다", CLAUSE),
        ("55만 원", "금 550,000원"),
        ("1억 2천만 원", "금 일억이천만원(₩120,000,000)"),
        ("2만 5천 원", "25,000원"),
        ("30퍼센트", "계약금액의 100분의 30"),
    ],
)
def test_one_figure_in_two_spellings_is_supported(answer, source):
    assert unsupported(answer, [source]) == []


def test_an_invented_figure_is_caught():
    [bad] = unsupported("하루 0.3%, 최대 10%입니다", [CLAUSE, "총액은 100분의 10을 넘지 못한다"])
    assert bad.surface == "0.3%"


@pytest.mark.parametrize(
    "text",
    [
        *("제15조 제2항에 따라", "7조에 따르면", "5조의2", "1. 선급금", "① 갑은", "천재지변"),
        *("A4 용지", "제5조: “3. 잔금:"),  # a quoted item keeps its marker
    ],
)
def test_labels_markers_and_words_are_not_figures(text):
    assert figures(text) == []


def test_trillions_are_figures_not_articles():
    assert [f.surface for f in figures("매출 5조 원")] == ["5"]


def test_a_long_run_of_digits_costs_linear_time():
    # A pasted 20,000-digit message is one figure, read in one pass (it was quadratic: ~60 s).
    assert len(figures("1" * 20_000 + " 원")) == 1


def test_the_clock_supports_its_dates_and_times_not_its_numbers():
    clock = "2026-11-25 (수) 09:30 KST"
    assert (
        unsupported(without_clock("오늘은 2026년 11월 25일, 지금은 9시 30분입니다.", clock), [])
        == []
    )
    # a temperature that happens to equal the day, a date the clock does not hold, a duration
    for invented in ["기온은 25°C입니다.", "회의는 3월 5일입니다.", "25일간 진행됩니다."]:
        assert unsupported(without_clock(invented, clock), []), invented
