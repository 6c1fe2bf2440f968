"""Korean text in sentences, and text a model writes for a Korean reader, kept Korean by its schema.

Measured on the default local model: with a Korean prompt, the evaluator's reasoning still came
back in English ("The information provided in the user's contract matches …"). A JSON-schema
pattern turns into the decoding grammar, so a constrained model cannot write a Latin letter.
"""

from __future__ import annotations

import re

#: Where a text splits into sentences and lines (an answer's sentences, a passage's lines and
#: table rows).
SENTENCE = re.compile(r"(?<=[.!?。])\s+|\n+")
#: A phrase in quotes ("'임차인'", "“…”", "「…」"): mentioned, not used.
QUOTED = re.compile(r"['\"“‘「『][^'\"”’」』]+['\"”’」』]")


def korean_sentence(max_length: int) -> str:
    """A JSON-schema `pattern`: up to `max_length` characters of Hangul, digits, spaces and
    common punctuation, and no Latin letters ("제5조의2", "30일", "100분의 10" pass)."""
    return rf"^[가-힣0-9 ,.?!()·%~:/-]{{0,{max_length}}}$"
