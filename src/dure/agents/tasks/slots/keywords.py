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


#: Hangul just before a food word that belongs to it ("돼지" of 돼지국밥, "물" of 물냉면).
_FOOD_PREFIX = re.compile(r"(?<![가-힣])[가-힣]{1,3}$")
#: What names a restaurant rather than the food ("국밥집" → "국밥", "중식당" → "중식").
_SHOP_SUFFIX = re.compile(r"\s*(?:집|당|음식점|전문점|식당)$")


def _food_as_said(text: str, start: int, end: int) -> tuple[str, int]:
    """The food word as the user said it, with a compound's first part and no shop suffix."""
    prefix = _FOOD_PREFIX.search(text[:start])
    if prefix and prefix.group(0) not in _CUISINE and not _PARTICLE_ENDING.search(prefix.group(0)):
        return _SHOP_SUFFIX.sub("", text[prefix.start() : end]), prefix.start()
    return _SHOP_SUFFIX.sub("", text[start:end]), start


#: A word that ends in a particle is a word of its own, not a compound's first part.
_PARTICLE_ENDING = re.compile(r"(?:에서|으로|로|은|는|이|가|을|를|에|랑|하고|도)$")


def extract_keywords(u: Utterance) -> None:
    """Cuisines (`cuisine`, as said; `canonical_cuisine` gives the category) and equipment."""
    for m in _CUISINE_RE.finditer(u.text):
        said, start = _food_as_said(u.text, m.start(), m.end())
        u.add("cuisine", said or m.group(0), start, m.end())
    for m in _EQUIPMENT_RE.finditer(u.text):
        u.add("equipment", _EQUIPMENT[m.group(0).lower()], m.start(), m.end())


def canonical_cuisine(word: str) -> str | None:
    """`"초밥"` → `"일식"`, `"돼지국밥"` → `"한식"`; None for words outside the vocabulary."""
    word = _SHOP_SUFFIX.sub("", word.strip().lower())
    if word in _CUISINE:
        return _CUISINE[word]
    found = _CUISINE_RE.search(word)  # a compound: its known part decides
    return _CUISINE[found.group(0).lower()] if found else None
