"""What the user will not eat ("매운 거 빼고", "견과류 알레르기", "고기 말고", "채식이에요") and
what a place must have ("주차 되는 곳", "룸 있는 데").

An exclusion is a canonical word: an ingredient group named as the food-allergy labels name it
("견과류", "갑각류", "난류" …), "고기", "해산물", "매운 음식", or a kind of food or a dish the
user negated ("중식 말고", "냉면 빼고", as the cuisine extractor read it). An ingredient counts
only next to a cue (빼고, 말고, 알레르기, 못 먹어, 없는, 안 매운 …): named without one, a food
is a wish, not an exclusion. A diet word (채식, 비건, 할랄) stands for its exclusions.
"""

from __future__ import annotations

import re

from dure.korean.numbers import alternation
from dure.korean.slots.core import Mention, Utterance

EXCLUSIONS: dict[str, tuple[str, ...]] = {
    "매운 음식": ("매운", "매콤한", "매콤", "얼큰한", "얼큰", "맵"),
    "고기": ("고기", "육류"),
    "돼지고기": ("돼지고기", "돼지"),
    "쇠고기": ("소고기", "쇠고기"),
    "닭고기": ("닭고기", "닭"),
    "해산물": ("해산물", "해물", "수산물", "생선"),
    "갑각류": ("갑각류", "새우", "꽃게", "랍스터"),
    "견과류": ("견과류", "견과", "땅콩", "호두", "잣", "아몬드"),
    "우유": ("우유", "유제품", "치즈", "유당"),
    "난류": ("달걀", "계란", "난류"),
    "밀": ("밀가루", "글루텐", "밀"),
    "대두": ("대두", "콩"),
    "메밀": ("메밀",),
}
DIETS: dict[str, tuple[str, ...]] = {
    "비건": ("고기", "해산물", "우유", "난류"),
    "채식": ("고기", "해산물"),
    "베지테리언": ("고기", "해산물"),
    "할랄": ("돼지고기",),
}
REQUIREMENTS: dict[str, tuple[str, ...]] = {
    "주차": ("주차",),
    "단체석": ("단체석", "단체 자리", "단체 테이블"),
    "룸": ("룸", "개별실", "프라이빗"),
    "예약 가능": ("예약 가능", "예약 되는", "예약되는", "예약할 수"),
}

_NOUNISH = r"(?:거|것|건|게|음식|요리|종류|류|메뉴|들어간|들어가는|든|는|은|이|가|을|를|도)"
_CUE = (
    r"(?:말고|빼고|빼\s*줘|빼\s*주|제외|없이|없는|없고|못\s*먹|안\s*먹|못\s*드|안\s*드|싫|별로|"
    r"알레르기|알러지|안\s*들어|지\s*않|금지|피해|피하|안\s*돼|프리)"
)


def _index(vocab: dict[str, tuple[str, ...]]) -> dict[str, str]:
    return {word: name for name, words in vocab.items() for word in words}


_WORDS = _index(EXCLUSIONS)
_WORD = rf"(?<![가-힣])(?:{alternation(_WORDS)})"
_AND = r"\s*(?:이랑|랑|하고|과|와|이나|나|및|,|/)\s*"
#: Ingredients, one or several ("땅콩이랑 새우"), then a cue ("… 알레르기", "… 빼고");
#: or the cue first ("알레르기: 우유, 땅콩").
_EXCLUDED = re.compile(
    rf"(?P<words>{_WORD}(?:{_AND}{_WORD})*)(?:\s*{_NOUNISH}){{0,2}}\s*{_CUE}"
    rf"|(?:알레르기|알러지)\s*[:：]\s*(?P<listed>{_WORD}(?:{_AND}{_WORD})*)"
)
_EACH = re.compile(_WORD)
#: Not spicy without naming an ingredient: "안 매운", "덜 맵게", "순한 맛", "맵찔이".
_SOFTENED = re.compile(
    rf"(?:안|덜)\s+(?:{alternation(EXCLUSIONS['매운 음식'])})|순한\s*(?:맛|거|걸|것|음식|메뉴)|순하게|맵찔이"
)
_DIET = re.compile(rf"(?<![가-힣])(?:{alternation(DIETS)})")
_NEEDS = _index(REQUIREMENTS)
_REQUIRED = re.compile(rf"(?<![가-힣])(?:{alternation(_NEEDS)})")


def _mention(u: Utterance, kind: str, value: str, start: int, end: int) -> None:
    # Read from the raw text without claiming it: the words stay for the other extractors.
    u.mentions.append(Mention(kind, value, start, end))


def extract_exclusions(u: Utterance) -> None:
    """`exclusion` mentions: ingredients next to a cue, diet words, negated foods."""
    for m in _EXCLUDED.finditer(u.raw):
        for word in _EACH.findall(m.group("words") or m.group("listed")):
            _mention(u, "exclusion", _WORDS[word], m.start(), m.end())
        for food in u.of("cuisine"):  # "해산물 못 먹어요" names no food to look for
            food.negated = food.negated or m.start() <= food.start < m.end()
    for m in _SOFTENED.finditer(u.raw):
        _mention(u, "exclusion", "매운 음식", m.start(), m.end())
    for m in _DIET.finditer(u.raw):
        for name in DIETS[m.group(0)]:
            _mention(u, "exclusion", name, m.start(), m.end())
    for food in [m for m in u.of("cuisine") if m.negated]:
        _mention(u, "exclusion", _WORDS.get(food.value, food.value), food.start, food.end)


def extract_requirements(u: Utterance) -> None:
    """`requirement` mentions: what a place must have ("주차", "룸", "단체석", "예약 가능")."""
    for m in _REQUIRED.finditer(u.raw):
        _mention(u, "requirement", _NEEDS[m.group(0)], m.start(), m.end())
