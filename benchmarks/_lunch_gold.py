"""The blind lunch set's annotations for `lunch_exclusions.py`: what its labels mean by the
dish table's fields (`breaks`), the reader's words mapped to them, and the request's own words
that answer a follow-up question (`ANSWERS`). Dev rows carry their replies themselves."""

from __future__ import annotations

from dure.agents.tasks.dishes import Dish
from dure.korean.slots.diet import EXCLUSIONS
from dure.korean.slots.keywords import food_exclusion

KINDS = ("한식", "중식", "일식", "양식", "분식", "아시안")

# --- the mapping from the reader's and the table's vocabulary to the set's labels -----------

#: Every word the reader (`diet.EXCLUSIONS` canonical words, negated foods), the dish table's
#: allergens and its kinds can produce, → the set's label (None: the set has no label for it).
#: Any other word is a food the user negated, → `메뉴:<word>`.
READER_TO_LABEL: dict[str, str | None] = {
    # diet.EXCLUSIONS: the reader's canonical words
    "매운 음식": "매운 음식",
    "고기": "고기",
    "돼지고기": "돼지고기",
    "쇠고기": "쇠고기",
    "닭고기": "닭고기",
    "해산물": "해산물",
    "갑각류": "갑각류",
    "견과류": "견과류",
    "우유": "우유",
    "난류": "난류",
    "밀": "밀",
    "글루텐": "글루텐",
    "대두": "대두",
    "메밀": "메밀",
    "술": None,  # the set has no label for alcohol (nor the table a dish with it)
    # the dish table's allergens
    "새우": "새우",
    "게": "게",
    "생선": "생선",
    "고등어": "생선",
    "조개류": "조개류",
    "땅콩": "땅콩",
    "호두": "견과류",
    "잣": "견과류",
    "오징어": None,
    "토마토": None,
    "아황산류": None,
    # the dish table's kinds ("고기" above)
    **{kind: f"종류:{kind}" for kind in KINDS},
    "샐러드": None,
    # diets, should a negated food word carry one
    "비건": "비건",
    "채식": "채식",
    "할랄": "할랄",
}
assert set(EXCLUSIONS) <= set(READER_TO_LABEL), "a reader word without a mapping"


def to_label(word: str) -> str | None:
    """The set's label for a word the reader gave."""
    if word in READER_TO_LABEL:
        return READER_TO_LABEL[word]
    return f"메뉴:{word}"


def gold_label(label: str) -> str:
    """A gold label with a dish named as the user spelled it, spelled as the table does
    ("메뉴:돈까스" → "메뉴:돈가스"): a spelling is not a miss."""
    if label.startswith("메뉴:"):
        return f"메뉴:{food_exclusion(label.removeprefix('메뉴:'))}"
    return label


# --- what breaks a gold label (the dish table's fields) -------------------------------------

MEAT = frozenset({"돼지고기", "쇠고기", "닭고기"})
FISH = frozenset({"생선", "고등어"})
SEAFOOD = FISH | {"새우", "게", "오징어", "조개류"}
#: Gold label → the table's allergens that break it. 견과류 includes 땅콩 (a nut allergy is
#: served no peanuts); 글루텐 is 밀 (the table lists 밀 for every wheat dish); 채식 is no meat,
#: fish or other seafood; 비건 adds 우유 and 난류; 할랄 is no pork (the table has no alcohol).
LABEL_ALLERGENS: dict[str, frozenset[str]] = {
    "견과류": frozenset({"땅콩", "호두", "잣"}),
    "땅콩": frozenset({"땅콩"}),
    "갑각류": frozenset({"새우", "게"}),
    "새우": frozenset({"새우"}),
    "게": frozenset({"게"}),
    "해산물": SEAFOOD,
    "생선": FISH,
    "조개류": frozenset({"조개류"}),
    "고기": MEAT,
    "돼지고기": frozenset({"돼지고기"}),
    "쇠고기": frozenset({"쇠고기"}),
    "닭고기": frozenset({"닭고기"}),
    "우유": frozenset({"우유"}),
    "난류": frozenset({"난류"}),
    "밀": frozenset({"밀"}),
    "대두": frozenset({"대두"}),
    "메밀": frozenset({"메밀"}),
    "글루텐": frozenset({"밀"}),
    "비건": MEAT | SEAFOOD | {"우유", "난류"},
    "채식": MEAT | SEAFOOD,
    "할랄": frozenset({"돼지고기"}),
}
DIETS = {"비건", "채식", "할랄"}
#: The table's scale: 0 안 매움 … 3 아주 매움 (`dishes.json` `_note`); anything above 0 is spicy.
SPICY_FROM = 1


def breaks(d: Dish, label: str) -> bool:
    """The dish breaks the gold label (the set's meaning, by the table's fields)."""
    label = gold_label(label)
    if label == "매운 음식":
        return d.spicy >= SPICY_FROM
    if label.startswith("종류:"):
        return d.category == label.removeprefix("종류:")
    if label.startswith("메뉴:"):  # the dish named so, or a kind of it ("국밥" → 돼지국밥)
        return label.removeprefix("메뉴:") in d.name
    if label == "고기" and d.category == "고기":
        return True
    return bool(LABEL_ALLERGENS[label] & set(d.allergens))


#: The blind request's own words for each required slot (place, time, party): the only replies
#: a follow-up question gets. Each one is a substring of its request. (Dev rows carry theirs.)
ANSWERS: dict[str, tuple[str, str, str]] = {
    "x001": ("강남역 근처", "12시", "3명"),
    "x002": ("판교 테크노밸리", "12시반", "둘이"),
    "x003": ("부산 서면", "오늘 점심 1시쯤", "4명"),
    "x004": ("여의도 IFC 근처", "오늘 12시", "혼밥"),
    "x005": ("홍대입구역 근처", "12시 반", "5명"),
    "x006": ("을지로3가 근처", "11시 50분", "2명"),
    "x007": ("성수동", "오늘 1시", "셋이서"),
    "x008": ("대전 둔산동", "12시", "4명"),
    "x009": ("광화문역 근처", "12시 10분", "6명"),
    "x010": ("잠실 롯데월드몰 근처", "오늘 점심 12시 반", "가족 4명"),
    "x011": ("종로", "1시", "두 명"),
    "x012": ("인천 송도 센트럴파크 근처", "12시", "3명"),
    "x013": ("신촌역 근처", "12시30분", "둘이"),
    "x014": ("구로디지털단지역 근처", "12시", "7명"),
    "x015": ("대구 동성로", "1시쯤", "둘이"),
    "x016": ("선릉역 근처", "11시 40분", "4명"),
    "x017": ("광주 상무지구", "12시 반", "혼자"),
    "x018": ("강남 신논현역 근처", "오늘 점심 12시", "5명"),
    "x019": ("수원역 근처", "오늘 12시 반", "3명"),
    "x020": ("마포 공덕역 근처", "12시", "2명"),
    "x021": ("제주시 노형동", "12시", "3명"),
    "x022": ("분당 정자동", "1시", "둘이서"),
    "x023": ("여의도", "12시", "4명"),
    "x024": ("삼성역 코엑스 근처", "12시 반", "8명"),
    "x025": ("서울대입구역 샤로수길", "1시", "둘이"),
    "x026": ("이태원", "12시 반", "3명"),
    "x027": ("건대입구", "12시", "4명"),
    "x028": ("울산 삼산동", "12시 20분", "두 명"),
    "x029": ("가산디지털단지", "점심1시", "혼밥"),
    "x030": ("청주 성안길 근처", "12시", "3명"),
    "x031": ("강남역 11번출구 근처", "오늘 1시", "가족 5명"),
    "x032": ("판교역", "12시 반", "6명"),
    "x033": ("부산 해운대", "12시 반", "둘이서"),
    "x034": ("시청역 근처", "12시 15분", "3명"),
    "x035": ("목동 오목교역", "1시 반", "둘이"),
    "x036": ("춘천 명동 근처", "12시", "둘이"),
    "x037": ("성수역", "12시 반", "4명"),
    "x038": ("역삼역", "12시 반", "3명"),
    # lunch_blind2 (written after lunch_blind's misses had been read)
    "y001": ("합정역 근처", "12시 반", "팀원 4명"),
    "y002": ("성수동", "12시", "혼자"),
    "y003": ("여의도역", "정오", "둘이서"),
    "y004": ("광화문", "1시", "우리 셋"),
    "y005": ("판교역 근처", "12시", "팀원 6명"),
    "y006": ("부산 남포동", "1시쯤", "가족 4명"),
    "y007": ("대구 수성구 범어역 근처", "12시 반", "둘이"),
    "y008": ("전주 한옥마을", "1시", "가족 다섯 명"),
    "y009": ("천안 불당동", "30분 뒤", "혼자"),
    "y010": ("일산 라페스타", "12시", "둘이"),
    "y011": ("강릉 교동 택지 근처", "12시 반", "3명"),
    "y012": ("강남역", "12시", "혼자"),
    "y013": ("을지로3가역", "1시", "8명"),
    "y014": ("홍대입구역", "정오", "둘이서"),
    "y015": ("판교 테크노밸리", "1시 반", "팀원 5명"),
    "y016": ("인천 송도 센트럴파크 근처", "1시", "혼자"),
    "y017": ("수원 행궁동", "12시 반쯤", "가족 4명"),
    "y018": ("신촌역 근처", "12시", "동기 셋이서"),
    "y019": ("종로3가", "정오", "둘이"),
    "y020": ("부산 광안리 근처", "12시", "셋이서"),
    "y021": ("삼성역 코엑스", "12:30", "for 2"),
    "y022": ("대전 유성온천역", "1시", "혼자"),
    "y023": ("포항 영일대 근처", "12시", "가족 여섯"),
    "y024": ("잠실 롯데월드몰", "12시반", "4명"),
    "y025": ("용산역", "1시", "팀원 7명"),
    "y026": ("경주 황리단길", "정오", "둘이"),
    "y027": ("목동 오목교역", "12시", "우리 셋"),
    "y028": ("평택 고덕신도시", "1시", "팀원 4명"),
    "y029": ("왕십리역", "12시 반", "혼자"),
    "y030": ("속초 중앙시장 근처", "1시쯤", "가족 넷"),
}
#: Budgets, for the requests whose words make the budget required ("예산").
BUDGETS: dict[str, str] = {"x032": "인당 1만2천원"}
