"""Small talk, one vocabulary for every decision: a message made only of greetings, thanks,
farewells or laughter ("안녕하세요!", "고마워요 ㅎㅎ", "ㅋㅋㅋ"), or also of short acknowledgements
and interjections ("네 알겠습니다", "아하 감사합니다"); reactions ("오 대박", "헐") are small
talk of the first kind.

Scope and route treat acknowledgements as small talk; intent does not: after an offer
("번역해 드릴까요?") a bare "네" is a follow-up request, which the example bank decides.
"""

from __future__ import annotations

import re
import unicodedata

_GREETING = (
    r"안녕(?:하세요|하십니까)?|하이|헬로|ㅎㅇ|반가워(?:요)?|반갑습니다|"
    # with the endings chat softens them with ("감사합니당", "고마워용", "고마웡")
    r"고마워(?:요|용)?|고마웡|고맙습니다|고맙습니당|고맙다|고맙|감사(?:합니다|합니당|해요|해용|해)?|"
    r"ㄱㅅ|ㄳ|땡큐|"
    # reactions ("오 대박", "헐", "우와"): chitchat whatever came before
    r"대박|헐|우와|와+|오+|오호|"
    r"잘\s?가(?:요)?|잘\s?자|잘\s?있어(?:요)?|수고(?:하셨습니다|했어요?|하세요)?|[ㅋㅎㅠㅜ]+|"
    r"hi|hello|hey|thanks?|thank\s?you|thx|bye"
)
_ACKNOWLEDGEMENT = (
    r"좋아(?:요)?|알겠(?:어|습니다)(?:요)?|알았어(?:요)?|네|응|넵|옙|ㅇㅇ|ㅇㅋ|오케이|ok|okay|"
    r"아+|아하"  # interjections ("아하 감사합니다")
)
#: Spaces, punctuation and emoji around the words.
_SEP = r"[\s!.,~?^*;:)(♡♥❤😊🙂😀😄🙏👍]*+"


def _only(words: str) -> re.Pattern[str]:
    """A whole message made of `words` (an alternation) and what may stand between them."""
    # A word may be said twice ("감사감사", "땡큐땡큐"), no more: with any number, and the loop
    # over words free to split a run again, a long "ㅋㅋㅋ…" that fails at its end tried every
    # split (seconds at 25 ㅋ, twice as long with each more). The loop keeps its first reading.
    word = rf"(?:{words})(?:{words})?(?![가-힣a-z])"
    return re.compile(rf"{_SEP}{word}(?:{_SEP}{word})*+{_SEP}", re.IGNORECASE)


_ONLY_GREETINGS = _only(_GREETING)
_ONLY_SMALLTALK = _only(f"{_GREETING}|{_ACKNOWLEDGEMENT}")
#: Longer than this, a message says more than hello.
MAX_CHARS = 30


def _core(text: str) -> str:
    return unicodedata.normalize("NFC", text).strip()


def is_greeting(text: str) -> bool:
    """Only greetings, thanks, farewells or laughter (what intent calls chitchat)."""
    core = _core(text)
    return 0 < len(core) <= MAX_CHARS and bool(_ONLY_GREETINGS.fullmatch(core))


def is_smalltalk(text: str) -> bool:
    """Only greetings, thanks, farewells, laughter or short acknowledgements."""
    core = _core(text)
    return 0 < len(core) <= MAX_CHARS and bool(_ONLY_SMALLTALK.fullmatch(core))
