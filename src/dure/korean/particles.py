"""Particles that follow the sound a word ends in: "제2조가", "제3조의2가", "제10조가", "회의실 A가".

A template that writes "제2조이(가)" reads like a form, not a sentence. Hangul is read from the
syllable's final consonant; a word ending in a digit from how the digit is read (영, 일, 삼, 육,
칠, 팔 end in a consonant; 이, 사, 오, 구 do not); a Latin letter from its English name ("L",
"M", "N", "R" end in one).
"""

from __future__ import annotations

__all__ = ["particle", "with_ro"]

_FINAL_DIGITS = "013678"
_FINAL_LETTERS = "LMNRlmnr"
#: The final consonant ㄹ (index 8): "로", not "으로", follows it ("을지로로", "서울로").
_RIEUL = 8


def _final(word: str) -> int | None:
    """The final consonant's index of the syllable `word` ends in (0: none), None for others."""
    last = word.rstrip()[-1:]
    return (ord(last) - 0xAC00) % 28 if "가" <= last <= "힣" else None


def _has_final(word: str) -> bool:
    """Whether `word` ends in a consonant sound."""
    final = _final(word)
    if final is not None:
        return final != 0
    last = word.rstrip()[-1:]
    return bool(last) and last in _FINAL_DIGITS + _FINAL_LETTERS


def particle(word: str, after_consonant: str, after_vowel: str) -> str:
    """`word` and the particle its last sound takes: `particle("제2조", "이", "가")` → "제2조가"."""
    return word + (after_consonant if _has_final(word) else after_vowel)


def with_ro(word: str) -> str:
    """`word` + (으)로: "2명으로", "을지로로", "서울로"."""
    ro = _has_final(word) and _final(word) != _RIEUL
    return word + ("으로" if ro else "로")
