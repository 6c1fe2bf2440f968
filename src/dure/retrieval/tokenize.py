"""Tokens for keyword search: Kiwi morphemes (the default) and whitespace words (the baseline).

Korean glues particles and endings to words ("계약을", "해지할"), so whitespace tokens rarely
match across sentences; Kiwi's morphemes ("계약", "해지") do. Only content morphemes are kept:
nouns, verb and adjective stems, roots, foreign words, numbers and hanja.
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kiwipiepy import Kiwi

__all__ = [
    "analyse",
    "kiwi_morphemes",
    "kiwi_tokens",
    "spaced_joins",
    "tagged",
    "whitespace_tokens",
]

#: Content tags: common/proper nouns, verb/adjective stems, roots, Latin, numbers, hanja.
_KEEP = frozenset({"NNG", "NNP", "NR", "VV", "VA", "XR", "SL", "SN", "SH", "NP"})
#: Nouns that make a compound when nothing separates them.
_NOUNS = frozenset({"NNG", "NNP"})
_lock = threading.Lock()


@lru_cache(maxsize=1)
def _kiwi() -> Kiwi:
    from kiwipiepy import Kiwi

    return Kiwi()


def tagged(text: str) -> list[tuple[str, str]]:
    """Kiwi's (form, tag) morphemes of `text`, in order (one Kiwi for the whole process)."""
    kiwi = _kiwi()
    with _lock:  # one analysis at a time: Kiwi is shared by the whole process
        return [(t.form, t.tag) for t in kiwi.tokenize(text)]


def spans(text: str) -> list[tuple[str, str, int, int]]:
    """Kiwi's morphemes of `text` as (form, tag, start, end) character offsets."""
    kiwi = _kiwi()
    with _lock:
        return [(t.form, t.tag, t.start, t.start + t.len) for t in kiwi.tokenize(text)]


def analyse(text: str, compounds: bool = False) -> tuple[list[str], list[str]]:
    """(content morphemes for BM25, every morpheme form) of `text`, lower-cased, in order.

    With `compounds`, nouns written together also count as one word after their parts: Kiwi
    splits "통신비" in "통신비 나와?" ("통신", "비") but keeps it whole in a table cell, so a
    question searches for both. Only questions get them (measured on every search set: Dure's
    search unchanged, plain BM25 hit@1 +0.005 dev / +0.002 blind); the index keeps Kiwi's words.
    """
    morphemes = spans(text)
    forms = [form.lower() for form, *_ in morphemes]
    content: list[str] = []
    run: list[str] = []
    end = -1
    for form, (_, tag, start, stop) in zip(forms, morphemes, strict=True):
        base = tag.split("-")[0]  # irregular stems carry a suffix ("VV-I")
        if base in _KEEP:
            content.append(form)
        if compounds and base in _NOUNS and run and start == end:
            run.append(form)
        else:
            if len(run) > 1:
                content.append("".join(run))
            run = [form] if base in _NOUNS else []
        end = stop
    if len(run) > 1:
        content.append("".join(run))
    return content, forms


def kiwi_tokens(text: str) -> list[str]:
    """Content morphemes of `text`, lower-cased, in order (repeats kept: BM25 counts them)."""
    return analyse(text)[0]


def kiwi_morphemes(text: str) -> list[str]:
    """Every morpheme form of `text` (particles and endings too), lower-cased."""
    return analyse(text)[1]


_WS_PUNCT = re.compile(r"[^\w]+")


def whitespace_tokens(text: str) -> list[str]:
    """Whitespace-separated words without punctuation (the baseline in the benchmarks)."""
    return [w for w in (_WS_PUNCT.sub("", w).lower() for w in text.split()) if w]


#: Words on each side of a join that Kiwi reads to place a space.
_JOIN_WORDS = 2


def spaced_joins(joins: list[tuple[str, str]]) -> list[bool]:
    """For each (text before, text after) that a line break cut apart: whether Kiwi's spacing
    puts a space where they meet ("목적" + "으로" → no, "어느" + "일방의" → yes)."""
    if not joins:
        return []
    tails = [" ".join(a.split()[-_JOIN_WORDS:]) for a, _ in joins]
    heads = [" ".join(b.split()[:_JOIN_WORDS]) for _, b in joins]
    kiwi = _kiwi()
    with _lock:
        spaced = list(kiwi.space([t + h for t, h in zip(tails, heads, strict=True)]))
    return [_space_after(s, len(t.replace(" ", ""))) for s, t in zip(spaced, tails, strict=True)]


def _space_after(text: str, letters: int) -> bool:
    """Whether a space follows the first `letters` non-space characters of `text`."""
    seen = 0
    for i, ch in enumerate(text):
        if ch != " ":
            seen += 1
            if seen == letters:
                return text[i + 1 : i + 2] == " "
    return False
