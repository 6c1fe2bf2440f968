"""What the user will not eat ("매운 거 빼고", "견과류 알레르기", "고기 말고", "채식이에요") and
what a place must have ("주차 되는 곳", "룸 있는 데").

An exclusion is a canonical word: an ingredient as the food-allergy labels name it ("견과류",
"땅콩", "갑각류", "새우", "게", "조개류", "난류" …), "고기", "해산물", "생선", "매운 음식", a
diet ("비건", "채식", "할랄": the dish filter knows what each rules out), or a kind of food or a
dish the user negated ("중식 말고", "냉면 빼고"). Foods count only in the scope of a cue
(`negation`: 빼고, 말고, 알레르기, 못 먹어, 별로, 안 맞아 … with words between): named without
one, a food is a wish, not an exclusion. A diet word needs no cue.
"""

from __future__ import annotations

import re

from dure.korean.numbers import alternation
from dure.korean.slots.core import Mention, Utterance
from dure.korean.slots.keywords import food_exclusion, is_kind
from dure.korean.slots.negation import ALLERGY, Item, negated
from dure.korean.slots.place import known_places

EXCLUSIONS: dict[str, tuple[str, ...]] = {
    "매운 음식": (
        "매운",
        "매운맛",
        "매콤한",
        "매콤",
        "얼큰한",
        "얼큰",
        "칼칼한",
        "맵",
        "맵게",
        "자극적인",
        "빨간",
        "고추",
        "고춧가루",
        "spicy",
    ),
    "고기": ("고기", "육류", "육고기", "고기류", "meat"),
    "돼지고기": ("돼지고기", "돼지 고기", "되지고기", "돼지", "돈육", "pork"),
    "쇠고기": ("소고기", "쇠고기", "소 고기", "쏘고기", "우육", "beef"),
    "닭고기": ("닭고기", "닭 고기", "닭", "chicken"),
    "해산물": ("해산물", "해물", "수산물", "seafood"),
    "생선": ("생선", "생선류", "물고기", "연어", "참치", "고등어", "광어", "fish"),
    "갑각류": ("갑각류", "갑깍류", "랍스터", "랍스타", "가재"),
    "새우": ("새우", "세우", "대하", "shrimp", "prawn"),
    "게": ("꽃게", "대게", "홍게", "킹크랩", "크랩", "게살", "게장", "crab"),
    "조개류": (
        "조개류",
        "조개",
        "조갯살",
        "패류",
        "굴",
        "홍합",
        "바지락",
        "전복",
        "가리비",
        "꼬막",
        "모시조개",
        "재첩",
        "소라",
        "키조개",
        "관자",
        "shellfish",
        "clam",
        "oyster",
    ),
    "오징어": ("오징어",),
    "견과류": (
        "견과류",
        "견과루",
        "견과",
        "호두",
        "잣",
        "아몬드",
        "캐슈넛",
        "피스타치오",
        "마카다미아",
        "헤이즐넛",
        "피칸",
        "nut",
        "nuts",
    ),
    "땅콩": ("땅콩", "피넛", "peanut", "peanuts"),
    "우유": (
        "우유",
        "유제품",
        "치즈",
        "유당",
        "락토스",
        "버터",
        "요거트",
        "요구르트",
        "milk",
        "dairy",
        "lactose",
    ),
    "난류": ("달걀", "계란", "게란", "난류", "계란류", "egg", "eggs"),
    "밀": ("밀가루", "밀 가루", "밀", "소맥", "wheat"),
    "글루텐": ("글루텐", "글로텐", "gluten"),
    "대두": ("대두", "콩", "두부", "soy"),
    "메밀": ("메밀", "buckwheat"),
    "술": ("술", "알코올", "알콜", "주류", "alcohol"),
}
#: A diet stands for what it rules out (the dish filter, `dishes.GROUPS`); no cue needed.
DIETS: dict[str, tuple[str, ...]] = {
    "비건": ("비건", "완전 채식", "완전채식", "vegan"),
    "채식": (
        "채식",
        "채식주의",
        "채식주의자",
        "베지테리언",
        "베지테리안",
        "vegetarian",
        "락토오보",
    ),
    "할랄": ("할랄", "halal"),
    "고기": ("페스코",),
}
REQUIREMENTS: dict[str, tuple[str, ...]] = {
    "주차": ("주차",),
    "단체석": ("단체석", "단체 자리", "단체 테이블"),
    "룸": ("룸", "개별실", "프라이빗"),
    "예약 가능": ("예약 가능", "예약 되는", "예약되는", "예약할 수"),
}


def _index(vocab: dict[str, tuple[str, ...]]) -> dict[str, str]:
    return {word.lower(): name for name, words in vocab.items() for word in words}


_WORDS = _index(EXCLUSIONS)
_INGREDIENT = re.compile(rf"(?<![가-힣A-Za-z])(?:{alternation(_WORDS)})(?![A-Za-z])", re.IGNORECASE)
_ADNOMINAL = "[운는은된한인던간난든른픈쁜린긴진]"
#: 게 alone is crab only where nothing else can be meant ("게 알레르기", "새우랑 게"), never
#: "매운 게" (= 것이, after a word that modifies it).
_CRAB = re.compile(
    rf"(?<![가-힣])(?<!{_ADNOMINAL}\s)게(?=\s*(?:{ALLERGY}|랑|이랑|하고|나\s|,|/|·|\)|류|살|요리|들어|종류)"
    r"|\s*(?:빼|말고|제외|못|안\s))"
    r"|(?:(?<=[,/·]\s)|(?<=[,/·])|(?<=랑\s)|(?<=나\s)|(?<=하고\s)|(?<=와\s))게"
)
#: Not spicy without a cue: "안 매운", "덜 맵게", "순한 맛", "맵지 않은", "맵찔이".
_SOFTENED = re.compile(
    r"(?:안|덜)\s*(?:매운|매콤|맵|얼큰)|순한\s*(?:맛|거|걸|것|음식|메뉴)|순하게|맵찔이|맵지\s*않"
)
_DIET = re.compile(
    rf"(?<![가-힣A-Za-z])(?:{alternation(_index(DIETS))})(?![A-Za-z])"
    r"(?!\s*(?:은|는|이|가)?\s*아니)",
    re.IGNORECASE,
)
_DIET_OF = _index(DIETS)
_NEEDS = _index(REQUIREMENTS)
_REQUIRED = re.compile(rf"(?<![가-힣])(?:{alternation(_NEEDS)})")


def _mention(u: Utterance, kind: str, value: str, start: int, end: int) -> None:
    # Read from the raw text without claiming it: the words stay for the other extractors.
    u.mentions.append(Mention(kind, value, start, end))


def _foods(u: Utterance) -> list[tuple[Item, str, Mention | None]]:
    """Every food in the text, in order: its item, its exclusion word and its cuisine mention."""
    dishes = u.of("cuisine")
    found: list[tuple[Item, str, Mention | None]] = []
    for food in dishes:
        if food.value.lower() in _WORDS:  # "고기", "해산물": a food and an ingredient
            found.append((Item(food.start, food.end, "ingredient"), _WORDS[food.value], food))
        else:
            kind = "kind" if is_kind(food.value) else "dish"
            found.append((Item(food.start, food.end, kind), food_exclusion(food.value), food))
    taken = [(f.start, f.end) for f in dishes]
    words = [(m, _WORDS[m.group(0).lower()]) for m in _INGREDIENT.finditer(u.raw)]
    words += [(m, "게") for m in _CRAB.finditer(u.raw)]
    for m, word in words:
        if not any(s < m.end() and m.start() < e for s, e in taken):  # "돼지" of 돼지국밥
            found.append((Item(m.start(), m.end(), "ingredient"), word, None))
    return sorted(found, key=lambda f: f[0].start)


def extract_exclusions(u: Utterance) -> None:
    """`exclusion` mentions: foods in a cue's scope (a negated dish is no wish), diet words."""
    foods = _foods(u)
    others = [(m.start, m.end) for m in u.mentions if m.kind != "cuisine"]
    others += known_places(u.raw)
    for i in negated(u.raw, [item for item, _, _ in foods], others):
        item, word, food = foods[i]
        if food is None:
            _mention(u, "exclusion", word, item.start, item.end)
        else:
            food.negated = True
    for item, word, food in foods:  # in scope, or negated by the slot rule ("냉면 대신 국수")
        if food is not None and food.negated:
            _mention(u, "exclusion", word, item.start, item.end)
    for m in _SOFTENED.finditer(u.raw):
        _mention(u, "exclusion", "매운 음식", m.start(), m.end())
    for m in _DIET.finditer(u.raw):
        _mention(u, "exclusion", _DIET_OF[m.group(0).lower()], m.start(), m.end())


def extract_requirements(u: Utterance) -> None:
    """`requirement` mentions: what a place must have ("주차", "룸", "단체석", "예약 가능")."""
    for m in _REQUIRED.finditer(u.raw):
        _mention(u, "requirement", _NEEDS[m.group(0)], m.start(), m.end())
