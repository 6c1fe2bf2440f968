"""Particles chosen by the sound a word ends in (`dure.korean.particles`)."""

from __future__ import annotations

from dure.korean.particles import particle, with_ro


def test_hangul_digits_and_letters_take_the_particle_they_are_read_with() -> None:
    said = [particle(w, "이", "가") for w in ["제2조", "제3조의2", "제10조", "제11조", "계약서"]]
    assert said == ["제2조가", "제3조의2가", "제10조가", "제11조가", "계약서가"]
    assert [particle(w, "이", "가") for w in ["별표 1", "회의실 A", "회의실 M", "9"]] == [
        "별표 1이",
        "회의실 A가",
        "회의실 M이",
        "9가",  # 구
    ]
    assert particle("시간과 인원", "을", "를") == "시간과 인원을"


def test_ro_after_rieul_and_vowels() -> None:
    assert [with_ro(w) for w in ["2명", "을지로", "서울", "3시"]] == [
        "2명으로",
        "을지로로",
        "서울로",
        "3시로",
    ]
