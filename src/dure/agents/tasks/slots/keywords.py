"""Closed vocabularies: cuisine and meeting-room equipment, each word → its canonical name."""

from __future__ import annotations

import re

from dure.agents.tasks.slots.core import Utterance
from dure.agents.tasks.slots.numbers import alternation

CUISINES: dict[str, tuple[str, ...]] = {
    "한식": (
        "한식",
        "백반",
        "국밥",
        "김치찌개",
        "된장찌개",
        "찌개",
        "비빔밥",
        "냉면",
        "막국수",
        "칼국수",
        "국수",
        "설렁탕",
        "곰탕",
        "순대국",
        "순두부",
        "제육",
        "한정식",
        "보쌈",
        "감자탕",
        "해장국",
        "쌈밥",
        "갈비탕",
        "국시",
    ),
    "중식": (
        "중식",
        "중국집",
        "중국 음식",
        "중국음식",
        "중화요리",
        "짜장",
        "자장면",
        "짬뽕",
        "탕수육",
        "마라",
        "딤섬",
        "꿔바로우",
    ),
    "일식": (
        "일식",
        "초밥",
        "스시",
        "라멘",
        "우동",
        "돈가스",
        "돈까스",
        "카츠",
        "규동",
        "소바",
        "사시미",
        "사케동",
        "오마카세",
    ),
    "양식": (
        "양식",
        "파스타",
        "피자",
        "스테이크",
        "리조또",
        "버거",
        "햄버거",
        "브런치",
        "이탈리안",
    ),
    "분식": ("분식", "떡볶이", "김밥", "라면", "순대", "튀김", "라볶이"),
    "아시안": (
        "아시안",
        "베트남",
        "쌀국수",
        "태국",
        "팟타이",
        "인도 음식",
        "인도요리",
        "커리",
        "카레",
        "반미",
        "분짜",
        "똠얌",
    ),
    "고기": ("고기", "삼겹살", "고깃집", "갈비", "소고기", "돼지고기", "목살", "한우", "육회"),
    "샐러드": ("샐러드", "포케", "건강식", "비건", "채식", "다이어트"),
}
EQUIPMENT: dict[str, tuple[str, ...]] = {
    "화상회의": (
        "화상회의",
        "화상 회의",
        "화상",
        "영상회의",
        "줌",
        "zoom",
        "웹엑스",
        "팀즈",
        "구글밋",
    ),
    "프로젝터": ("프로젝터", "빔프로젝터", "빔 프로젝터", "빔", "스크린", "tv", "모니터"),
    "화이트보드": ("화이트보드", "칠판"),
}


def _index(vocab: dict[str, tuple[str, ...]]) -> tuple[re.Pattern[str], dict[str, str]]:
    canon = {w.lower(): name for name, words in vocab.items() for w in words}
    return re.compile(alternation(canon), re.IGNORECASE), canon


_CUISINE_RE, _CUISINE = _index(CUISINES)
_EQUIPMENT_RE, _EQUIPMENT = _index(EQUIPMENT)
#: Every vocabulary word (a place name is never one of these).
VOCABULARY = frozenset(_CUISINE) | frozenset(_EQUIPMENT)


def extract_keywords(u: Utterance) -> None:
    """Cuisines (`cuisine`) and equipment (`equipment`)."""
    for pattern, canon, kind in (
        (_CUISINE_RE, _CUISINE, "cuisine"),
        (_EQUIPMENT_RE, _EQUIPMENT, "equipment"),
    ):
        for m in pattern.finditer(u.text):
            u.add(kind, canon[m.group(0).lower()], m.start(), m.end())


def canonical_cuisine(word: str) -> str | None:
    """`"초밥"` → `"일식"`; None for words outside the vocabulary."""
    return _CUISINE.get(word.strip().lower())
