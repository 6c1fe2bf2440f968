"""Closed vocabularies: cuisine and meeting-room equipment, each word → its canonical name."""

from __future__ import annotations

import re

from dure.korean.numbers import alternation
from dure.korean.slots.core import Utterance
from dure.retrieval.tokenize import spans

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
        "밀면",
        "비빔국수",
        "잔치국수",
        "콩국수",
        "수제비",
        "부대찌개",
        "김치찜",
        "청국장",
        "육개장",
        "추어탕",
        "삼계탕",
        "백숙",
        "닭볶음탕",
        "닭한마리",
        "짜글이",
        "닭갈비",
        "불고기",
        "떡갈비",
        "족발",
        "수육",
        "생선구이",
        "해물탕",
        "해산물",
        "아구찜",
        "낙지",
        "쭈꾸미",
        "주꾸미",
        "오징어볶음",
        "컵밥",
        "도시락",
        "물회",
        "korean food",
        "bibimbap",
        "bulgogi",
    ),
    "중식": (
        "중식",
        "중국집",
        "중국 음식",
        "중국",
        "중국음식",
        "중화요리",
        "짜장",
        "자장면",
        "짬뽕",
        "탕수육",
        "마라",
        "딤섬",
        "꿔바로우",
        "훠궈",
        "양꼬치",
        "마파두부",
        "볶음밥",
        "유린기",
        "깐풍기",
        "샤오롱바오",
        "chinese food",
        "dim sum",
        "hot pot",
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
        "덮밥",
        "텐동",
        "돈부리",
        "장어",
        "샤브샤브",
        "스키야키",
        "오코노미야키",
        "야키토리",
        "이자카야",
        "횟집",
        "japanese food",
        "sushi",
        "sashimi",
        "ramen",
        "udon",
        "omakase",
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
        "샌드위치",
        "멕시칸",
        "타코",
        "부리또",
        "퀘사디아",
        "감바스",
        "라자냐",
        "뇨끼",
        "오믈렛",
        "치킨",
        "pasta",
        "pizza",
        "steak",
        "burger",
        "burgers",
        "sandwich",
        "brunch",
        "italian",
        "mexican",
        "tacos",
    ),
    "분식": (
        "분식",
        "떡볶이",
        "김밥",
        "라면",
        "순대",
        "튀김",
        "라볶이",
        "쫄면",
        "어묵",
        "만두",
        "tteokbokki",
        "kimbap",
    ),
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
        "나시고랭",
        "월남쌈",
        "케밥",
        "thai food",
        "vietnamese",
        "pho",
        "pad thai",
        "curry",
        "indian food",
    ),
    "고기": (
        "고기",
        "삼겹살",
        "고깃집",
        "갈비",
        "소고기",
        "돼지고기",
        "목살",
        "한우",
        "육회",
        "곱창",
        "막창",
        "대창",
        "양갈비",
        "차돌박이",
        "오리고기",
        "숯불구이",
        "항정살",
        "갈매기살",
        "korean bbq",
        "bbq",
        "barbecue",
    ),
    "샐러드": ("샐러드", "포케", "건강식", "비건", "채식", "다이어트", "salad", "poke bowl"),
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
    """The vocabulary's pattern (an English word only as a whole word: "pho" is not in
    "phone") and each word's canonical name."""
    canon = {w.lower(): name for name, words in vocab.items() for w in words}
    pattern = rf"(?<![a-z])(?:{alternation(canon)})(?![a-z])"
    return re.compile(pattern, re.IGNORECASE), canon


_CUISINE_RE, _CUISINE = _index(CUISINES)
_EQUIPMENT_RE, _EQUIPMENT = _index(EQUIPMENT)
#: Raw fish: one syllable, so Kiwi tells it from 회의, 회사, 회식 and "3회" (not the pattern).
_RAW_FISH = "회"
#: Every vocabulary word (a place name is never one of these).
VOCABULARY = frozenset(_CUISINE) | frozenset(_EQUIPMENT)


#: What names a restaurant rather than the food ("국밥집" → "국밥", "중식당" → "중식").
_SHOP_SUFFIX = re.compile(r"(?<=\S)\s*(?:음식점|전문점|집|당)$|\s+식당$")
#: A syllable's final ㅅ (종성 index 19): the 사이시옷 of "횟집", "고깃집", "찻집".
_FINAL_S = 19


def _without_shop(word: str) -> str:
    """The food in a shop's name: "국밥집" → "국밥", "중식당" → "중식", and the 사이시옷 before
    집 undone: "횟집" → "회", "고깃집" → "고기"."""
    bare = _SHOP_SUFFIX.sub("", word).strip()
    last = ord(bare[-1]) - 0xAC00 if bare and word.rstrip().endswith("집") else -1
    if 0 <= last < 11172 and last % 28 == _FINAL_S:
        bare = bare[:-1] + chr(0xAC00 + last - _FINAL_S)
    return bare


_NOUN_TAGS = ("NNG", "NNP", "SL", "XSN")


def _food_as_said(text: str, start: int, end: int) -> tuple[str, int, int]:
    """The food the user said around a vocabulary word, from Kiwi's nouns: the whole noun it
    sits in ("마라" of 마라탕, "짜장" of 짜장면), a short noun before it ("돼지" of 돼지 국밥집
    written as one word), without a shop suffix ("국밥집" → "국밥")."""
    left = max(text.rfind(" ", 0, start), text.rfind(",", 0, start)) + 1
    right = min(
        (i for i in (text.find(" ", end), text.find(",", end)) if i != -1), default=len(text)
    )
    word = text[left:right]
    tokens = [(form, tag, left + a, left + b) for form, tag, a, b in spans(word)]
    nouns = [t for t in tokens if t[1].split("-")[0] in _NOUN_TAGS]
    covering = [t for t in nouns if t[2] < end and t[3] > start]
    if covering:
        first = tokens.index(covering[0])
        last = tokens.index(covering[-1])
        while last + 1 < len(tokens) and tokens[last + 1][1] in _NOUN_TAGS:
            last += 1
        if first > 0 and tokens[first - 1][1] in _NOUN_TAGS and len(tokens[first - 1][0]) <= 2:
            first -= 1
        # never less than the vocabulary word: Kiwi reads "포케" as 포 + 하게, "닭한마리" as 닭 한 마리
        start, end = min(start, tokens[first][2]), max(end, tokens[last][3])
    said = _without_shop(text[start:end])
    return said or text[start:end], start, end


def extract_keywords(u: Utterance) -> None:
    """Cuisines (`cuisine`, as said; `canonical_cuisine` gives the category) and equipment."""
    for m in _CUISINE_RE.finditer(u.text):
        if any(s < m.end() and m.start() < e for s, e in u.claimed("cuisine")):
            continue  # a second vocabulary word inside a food already read ("마라" in 마라샹궈)
        said, start, end = _food_as_said(u.text, m.start(), m.end())
        u.add("cuisine", said, start, end)
    morphemes = spans(u.text) if _RAW_FISH in u.text else []  # Kiwi only when it may be there
    for form, tag, start, end in morphemes:  # what is read already is blanked out
        if form == _RAW_FISH and tag == "NNG":
            said, start, end = _food_as_said(u.text, start, end)
            u.add("cuisine", said, start, end)
    for m in _EQUIPMENT_RE.finditer(u.text):
        u.add("equipment", _EQUIPMENT[m.group(0).lower()], m.start(), m.end())


#: Words that name a whole kind of food, not one dish ("중국집 말고" rules out all of 중식).
_KIND_WORDS = frozenset({"중국", "중국 음식", "중국음식", "중화요리", "고깃집"})
#: Spellings people use for a dish, → the dish table's ("돈까스" → "돈가스").
_SPELLINGS = (("까스", "가스"), ("자장", "짜장"), ("쭈꾸미", "주꾸미"))


def is_kind(word: str) -> bool:
    """True when the food word names a whole kind ("중식", "중국집", "분식"), not a dish."""
    word = _without_shop(word.strip().lower())
    return word in CUISINES or word in _KIND_WORDS


def food_exclusion(word: str) -> str:
    """What a negated food rules out: its kind for a kind word ("중국집" → "중식"), else the
    dish as the table spells it ("돈까스" → "돈가스")."""
    if is_kind(word):
        return canonical_cuisine(word) or word
    for said, table in _SPELLINGS:
        word = word.replace(said, table)
    return word


def canonical_cuisine(word: str) -> str | None:
    """`"초밥"` → `"일식"`, `"돼지국밥"` → `"한식"`; None for words outside the vocabulary."""
    word = _without_shop(word.strip().lower())
    if word in _CUISINE:
        return _CUISINE[word]
    found = _CUISINE_RE.search(word)  # a compound: its known part decides
    if found:
        return _CUISINE[found.group(0).lower()]
    return "일식" if word.endswith(_RAW_FISH) else None  # "회", "광어회" (물회 is listed: 한식)
