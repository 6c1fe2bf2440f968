"""Party size: "2명", "두 명", "세 분", "둘이서", "혼자", "나 포함 4명", "나 빼고 3명", "친구
셋이랑 나", in English "3 people", "party of 4", "lunch for two", "just me"; a change to the size already filled:
"한 명 더 온대", "두 명 추가", "한 명 빠졌어" (`party_change`, added to the previous size by the
slot filler); the head count named as such: "인원은 넷으로". "4인 세트" is a dish, not the party.

A count of some of the party is not its size: "5명 중에 두 명", or a count that is the subject
of what someone cannot eat ("넷이서 가는데 한 명이 갑각류 알레르기": 4, not 1).
"""

from __future__ import annotations

import re

from dure.korean.numbers import COUNT, NATIVE, alternation, count_value
from dure.korean.slots.core import Utterance
from dure.korean.slots.negation import same_clause

_ME = r"(?:나|저|본인)"
_INCLUDING = re.compile(
    rf"{_ME}\s*(?:포함(?:해서)?|까지(?:\s*해서)?)\s*(?:총\s*)?(?P<n>{COUNT})"
    r"(?:\s*(?:명|분|인)|(?![가-힣]))"
)
_BESIDES = re.compile(rf"{_ME}\s*(?:빼고|말고|제외하고)\s*(?P<n>{COUNT})\s*(?:명|분)(?:\s*더)?")
# "나랑 친구 둘", "저하고 동료 2명": the people named come on top of the speaker.
_WITH_ME = re.compile(
    rf"{_ME}\s*(?:랑|이랑|하고|와)\s*(?:친구|동료|팀원|후배|선배|동기|가족|직원)들?\s*"
    rf"(?P<n>{COUNT})(?:\s*(?:명|분)|(?![가-힣]))"
)
# "팀원 4명이랑 나", "친구 셋이랑 나": the speaker comes on top of the people counted.
_AND_ME = re.compile(
    rf"(?P<n>{COUNT})\s*(?:명|분)?\s*(?:이랑|랑|하고|와|과)\s*(?:{_ME}|제가|내가)(?![가-힣])"
)
#: People joining or dropping out of the party already counted.
_MORE = re.compile(
    rf"(?<![가-힣\d])(?P<n>{COUNT})\s*(?:명|분)\s*(?:더\s*(?:온|와|오|갈|간|가|낀|낄|끼|추가)|추가|늘)"
)
_FEWER = re.compile(
    rf"(?<![가-힣\d])(?P<n>{COUNT})\s*(?:명|분)(?:이|은)?\s*(?:빠|줄|못\s*(?:와|온|오|가|간|갈)|취소)"
)
#: The head count named as such: "인원은 넷으로", "사람 여섯으로 바꿔줘", "인원수 5".
_HEADCOUNT = re.compile(
    rf"(?:인원수?|사람\s*수?|명수)\s*(?:은|는|을|를|이|가)?\s*(?P<n>{COUNT})\s*(?:명|분)?"
    r"(?=\s*(?:으로|로|이요|요|입니다|$|[\s,.!]))"
)
_ALONE = re.compile(r"혼자|혼밥|(?i:\b(?:just me|by myself|alone)\b)")
_EN_COUNTS = {
    w: n
    for n, w in enumerate(
        "one two three four five six seven eight nine ten eleven twelve".split(), start=1
    )
}
_EN_COUNT = rf"\d{{1,3}}|{'|'.join(_EN_COUNTS)}"
#: In English: "3 people", "two ppl", "6 pax", "party of 4", "lunch for 2", "table for four" —
#: not "for 2 hours", "for 12:30" or "for 2 pm".
_PEOPLE_EN = re.compile(
    rf"(?i)(?<![\w.,])(?:(?P<n>{_EN_COUNT})\s*(?:people|persons|ppl|pax|guests|of\s+us)"
    rf"|(?:party\s+of|for)\s+(?P<p>{_EN_COUNT})(?![\w:]|\.\d|\s*(?:hours?|hrs?|min|minutes?|days?|"
    r"weeks?|months?|years?|[ap]\.?m\b|o'?clock|won|원|만|천|k\b|dollars?|bucks)))\b"
)
_COUNTER = re.compile(
    rf"(?<![가-힣\d])(?P<n>{COUNT})(?:\s*[~-]\s*(?P<n2>{COUNT}))?\s*(?P<c>명|분|인)"
    r"(?!분|당|용|\s*(?:세트|set)|\s*더)"
)
# A digit before 분 is minutes unless the words after it are about people ("3분이서").
_PEOPLE_AFTER_BUN = re.compile(r"이서|이요|이에요|입니다|께서|이\s")
_PAIR_WORDS = alternation(k for k in NATIVE if len(k) > 1 or k in ("둘", "셋", "넷", "열"))
_PAIR = re.compile(
    rf"(?:우리\s*(?P<w1>둘|셋|넷|다섯)(?![가-힣]))"
    rf"|(?<![가-힣])(?P<w2>{_PAIR_WORDS})이(?:서|서요|요|에요|야)?"
    r"(?=\s*$|[\s,.!?]|\s*(?:먹|가|갈|점심|밥|식사|만|서))"
    r"|(?<![가-힣])(?P<w3>둘|셋|넷)(?=\s*$|\s*[,.!?])"
)
_SUBSET_BEFORE = re.compile(r"(?:중|가운데)\s*(?:에서|에|엔|에는)?\s*$")
_SUBJECT_AFTER = re.compile(r"\s*(?:이|가|은|는|도|만)(?=\s)")


def _some_of_them(u: Utterance, start: int, end: int) -> bool:
    """The count at `text[start:end]` is some of the party ("그중 한 명이", "한 명이 비건")."""
    if _SUBSET_BEFORE.search(u.text[:start]):
        return True
    if not _SUBJECT_AFTER.match(u.raw, end) and not any(
        m.end <= start and not m.negated for m in u.of("party_size")
    ):
        return False  # "4명 매운 거 빼고" is the party; "3명이고 1명 비건" is not
    return any(e.start >= end and same_clause(u.raw[end : e.start]) for e in u.of("exclusion"))


_BARE = re.compile(rf"^\s*(?P<n>{COUNT})\s*(?:명|분|인)?\s*(?:이요|요|이에요|입니다)?\s*[.!]?\s*$")


def extract_party(u: Utterance, *, expected: bool = False) -> None:
    """Party sizes (`party_size`) and changes to it (`party_change`); `expected` accepts a bare
    number as the answer."""
    for pattern, sign in ((_MORE, 1), (_FEWER, -1)):
        for m in pattern.finditer(u.text):
            if (n := count_value(m.group("n"))) is not None:
                u.add("party_change", sign * n, m.start(), m.end())
    for m in _INCLUDING.finditer(u.text):
        u.add("party_size", count_value(m.group("n")), m.start(), m.end())
    for pattern in (_BESIDES, _WITH_ME, _AND_ME):
        for m in pattern.finditer(u.text):
            n = count_value(m.group("n"))
            u.add("party_size", n + 1 if n else None, m.start(), m.end())
    for m in _HEADCOUNT.finditer(u.text):
        u.add("party_size", count_value(m.group("n")), m.start(), m.end())
    for m in _ALONE.finditer(u.text):
        u.add("party_size", 1, m.start(), m.end())
    for m in _PEOPLE_EN.finditer(u.text):
        said = (m.group("n") or m.group("p")).lower()
        u.add("party_size", _EN_COUNTS.get(said) or int(said), m.start(), m.end())
    for m in _COUNTER.finditer(u.text):
        word = m.group("n")
        if m.group("c") == "분" and word.isdigit() and not _PEOPLE_AFTER_BUN.match(u.raw, m.end()):
            continue
        if m.group("c") == "인" and not word.isdigit():
            continue
        if _some_of_them(u, m.start(), m.end()):
            continue
        values = [count_value(word), count_value(m.group("n2") or "")]
        u.add("party_size", max(v for v in values if v), m.start(), m.end())
    for m in _PAIR.finditer(u.text):
        u.add(
            "party_size",
            count_value(m.group("w1") or m.group("w2") or m.group("w3")),
            m.start(),
            m.end(),
        )
    if expected and not u.of("party_size") and (bare := _BARE.match(u.text)):
        u.add("party_size", count_value(bare.group("n")), bare.start(), bare.end())
