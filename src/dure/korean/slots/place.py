"""Places: a gazetteer of names and aliases (package data), then place-like phrases.

A place slot keeps what the user said, without particles, 근처/쪽/앞/기준, line or exit
numbers ("선릉역 5번 출구 근처에서" → "선릉역", "부산 서면 쪽" → "부산 서면"), and a landmark
keeps the place before it ("여의도 파크원 앞" → "여의도 파크원"), and a name written on to a known
one is kept whole ("코엑스몰", "여의도 IFC몰", not "강남역근처" or "성수동브런치"); its canonical area
for search is `canonical_place` ("선릉역" → the catalogue's area, "여의도 파크원" and "코엑스몰" → the
known place in it). A name outside the gazetteer is taken from the word before 에서 / 근처 / 쪽 /
앞 or before 역 (with or without a particle: "사당역이"), with a proper noun before it ("해운대
해수욕장", "광교 중앙역"), or from the word after a city that Kiwi reads as a proper noun or that
ends like a landmark ("대구 동성로", "전주 한옥마을"); words that are not places (회사, 집, 여기,
가족 …) never are.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from importlib.resources import files

from dure.korean.slots.core import Mention, Utterance
from dure.korean.slots.keywords import VOCABULARY
from dure.retrieval.tokenize import spans

_NOT_PLACES = frozenset(
    "회사 사무실 여기 거기 저기 이곳 그곳 근처 우리 동네 지하철 버스 식당 맛집 가게 출구 입구 학교 "
    "카페 본사 건물 사옥 사거리 오늘 내일 모레 점심 저녁 아침 회의실 미팅룸 창가 자리 다른데 아무데나 "
    "어디 어디든 거기서 그쪽 이쪽 저쪽 집앞 회사앞 정문 후문 주차장 그냥 역시 골목 지하 상가".split()
)
_PARTICLE_AFTER = r"(?:역)?\s*(?:에서|근처|부근|인근|쪽|주변|앞|기준)"
#: Cities and provinces that may stand before a district ("부산 서면", "대전 둔산동").
_REGIONS = (
    "서울 부산 대구 인천 광주 대전 울산 세종 제주 수원 성남 고양 용인 창원 청주 전주 천안 "
    "포항 김해 춘천 강릉 원주 목포 여수 순천 군산 익산 구미 경주 진주 거제 평택 안산 안양 부천 "
    "의정부 파주 김포 하남 광명 시흥 화성 남양주 일산 동탄 송도 "
    "경기 강원 충북 충남 전북 전남 경북 경남"
).split()
_REGION = f"(?:{'|'.join(_REGIONS)})"
_REGION_BEFORE = re.compile(rf"{_REGION}(?:시|도)?\s+$")
#: A city, then the next word ("전주 한옥마을", "대구 동성로", "평택 고덕신도시").
_REGION_THEN = re.compile(rf"(?<![가-힣A-Za-z0-9]){_REGION}(?:시)?\s+(?=[가-힣])")
#: What a landmark's last noun may be when Kiwi does not take it for a proper noun ("한옥마을").
_LANDMARK_ENDS = re.compile(
    r"(?:마을|길|로|거리|신도시|시장|타운|몰|공원|해변|해수욕장|항|포구|단지|광장|센터|타워|터미널)$"
)
_ACRONYM_AFTER = re.compile(r"^\s+[A-Z]{2,5}(?![A-Za-z])")
_LOOSE = re.compile(rf"(?<![가-힣A-Za-z0-9])(?P<name>[가-힣]{{2,8}}?){_PARTICLE_AFTER}")
#: A station, bare or with a particle ("사당역이 젤 편함", "이대역으로"), up to nine syllables
#: ("동대문역사문화공원역").
_STATION = re.compile(
    r"(?<![가-힣A-Za-z0-9])(?P<name>[가-힣]{2,9})역"
    r"(?=(?:이|은|는|을|를|도|에|에서|으로|이나|이면|이랑)?(?![가-힣]))"
)
#: The word before a place found by its shape, when Kiwi takes it for a proper noun: the
#: place's own name ("해운대 해수욕장", "광교 중앙역").
_WORD_BEFORE = re.compile(r"(?<![가-힣A-Za-z0-9])(?P<name>[가-힣]{2,6}) $")
#: A neighbourhood named as one ("상남동", "불당동"), not the words that end so by chance.
_DISTRICT = re.compile(r"(?<![가-힣A-Za-z0-9])(?P<name>[가-힣]{1,4}동)(?![가-힣])")
_NOT_DISTRICTS = frozenset(
    "활동 행동 운동 자동 이동 공동 감동 변동 출동 작동 노동 충동 동동 아동".split()
)
_BARE = re.compile(
    r"^\s*(?P<name>[가-힣A-Za-z]{2,10}?)(?:역)?\s*"
    r"(?:이요|요|이에요|예요|입니다|에서요|에서|으로요|로요|으로|로|쪽|근처)?\s*[.!]?\s*$"
)


#: "Gangnam station", "Seoul Forest stn": the English 역.
_STATION_EN = r"\s+(?:station|stn)(?![a-z])"
_STATION_END = re.compile(rf"(?:역|{_STATION_EN})$", re.IGNORECASE)


@lru_cache(maxsize=1)
def gazetteer() -> dict[str, str]:
    """Every known name and alias, lower-cased (`"ifc"`, `"gangnam"`) → its canonical place
    (`"강남역"` → `"강남"`)."""
    data = json.loads(files("dure").joinpath("data/places.json").read_text(encoding="utf-8"))
    return {
        name.lower(): canonical
        for canonical, aliases in data["places"].items()
        for name in (canonical, *aliases)
    }


@lru_cache(maxsize=1)
def _gazetteer_re() -> re.Pattern[str]:
    words = sorted(gazetteer(), key=len, reverse=True)
    alternatives = "|".join(r"\s*".join(map(re.escape, w.split())) for w in words)
    return re.compile(
        rf"(?<![가-힣A-Za-z])(?:{alternatives})(?:역|{_STATION_EN})?(?![a-z])", re.IGNORECASE
    )


def known_places(text: str) -> list[tuple[int, int]]:
    """The spans of the gazetteer's names in `text`."""
    return [m.span() for m in _gazetteer_re().finditer(text)]


def canonical_place(name: str) -> str:
    """The canonical name of a place (`"을지로입구역"` → `"을지로"`, `"Gangnam station"` →
    `"강남"`), else the name without 역."""
    compact = re.sub(r"\s+", " ", name.strip())
    stripped = _STATION_END.sub("", compact)
    if known := _known(compact) or _known(stripped):
        return known
    # a known place with a landmark after it or written on: "여의도 파크원", "코엑스몰", "IFC몰"
    if found := _gazetteer_re().search(compact):
        return _known(found.group()) or _known(_STATION_END.sub("", found.group())) or stripped
    return stripped


def _known(name: str) -> str | None:
    return gazetteer().get(name.lower())


def _is_place(name: str) -> bool:
    return len(name) >= 2 and name not in _NOT_PLACES and name.lower() not in VOCABULARY


def _surface(text: str, start: int, end: int) -> tuple[str, int, int]:
    """The place as said at `text[start:end]`, widened to a region before it ("부산 서면"), an
    acronym after it ("여의도 IFC") and the rest of its word (`_word_end`)."""
    if region := _REGION_BEFORE.search(text[:start]):
        start = region.start()
    if acronym := _ACRONYM_AFTER.match(text[end:]):
        end += acronym.end()
    end = _word_end(text, end)
    return re.sub(r"\s+", " ", text[start:end]).strip(), start, end


#: Nouns written on to a place that are not part of its name ("강남역근처", "광화문쪽", "강남역맛집").
_NOT_NAME_PARTS = (
    frozenset("근처 부근 인근 주변 근방 쪽 앞 옆 뒤 안 기준 쯤 맛집".split()) | _NOT_PLACES
)


def _word_end(text: str, end: int) -> int:
    """Where the name that ends at `end` really ends: through the nouns written on to it with no
    space ("코엑스몰", "IFC몰", "을지로3가", "판교역점"), not through a particle, 근처/쪽/앞 or a
    food ("강남역에서", "강남역근처", "성수동브런치")."""
    if not text[end : end + 1].strip() or not text[end].isalnum():
        return end
    reached = end
    # only the word `end` is in matters (a long message would be read again for every place)
    left = max(text.rfind(" ", 0, end), text.rfind("\n", 0, end)) + 1
    right = next((i for i in range(end, len(text)) if text[i].isspace()), len(text))
    for form, tag, start, stop in (
        (f, t, a + left, b + left) for f, t, a, b in spans(text[left:right])
    ):
        if stop <= end:
            continue
        if start > reached or tag not in ("NNG", "NNP", "SL", "SN"):
            break
        if form in _NOT_NAME_PARTS or form.lower() in VOCABULARY:
            break
        reached = stop
        if tag != "SN":  # a number only inside a name ("3가"), not before a count ("강남2명")
            end = stop
    return end


def _landmarks(text: str) -> list[tuple[int, int]]:
    """The word after a city that names a place there: nouns only, a proper noun first or a
    landmark's last noun ("한옥마을"), not a person or a meal ("부산 가족", "서울 점심")."""
    found = []
    regions = list(_REGION_THEN.finditer(text))
    morphs = spans(text) if regions else []
    for m in regions:
        nouns: list[tuple[str, str, int, int]] = []
        for form, tag, start, end in (x for x in morphs if x[2] >= m.end()):
            if not tag.startswith(("NN", "XSN")) or start != (nouns[-1][3] if nouns else m.end()):
                break
            nouns.append((form, tag, start, end))
        if not nouns:
            continue
        name = text[m.end() : nouns[-1][3]]
        if _is_place(name) and (nouns[0][1] == "NNP" or _LANDMARK_ENDS.search(name)):
            found.append((m.end(), nouns[-1][3]))
    return found


def _proper_before(text: str, start: int) -> int:
    """Where a place found by its shape at `start` begins: at the word before it when that is
    one proper noun and could be a place."""
    before = _WORD_BEFORE.search(text, max(0, start - 8), start)  # the word just before
    if before and _is_place(before["name"]):
        morphs = spans(before["name"])
        if len(morphs) == 1 and morphs[0][1] == "NNP":
            return before.start("name")
    return start


def _add(u: Utterance, start: int, end: int) -> None:
    value, start, end = _surface(u.text, start, end)
    u.add("place", value, start, end)


def extract_places(u: Utterance, *, expected: bool = False) -> None:
    """Places (`place`) as said; `expected` accepts a bare name as the answer ("합정이요")."""
    for m in _gazetteer_re().finditer(u.text):
        if u.text[m.start() : m.end()] == m.group():  # not inside a place found just before
            _add(u, m.start(), m.end())
    known = u.of("place")
    for start, end in _landmarks(u.text):
        _add(u, start, end)
    for pattern in (_LOOSE, _STATION, _DISTRICT):
        for m in pattern.finditer(u.text):
            if _is_place(m.group("name")) and m.group("name") not in _NOT_DISTRICTS:
                end = m.end("name")
                end += 1 if u.text[end : end + 1] == "역" else 0
                _add(u, _proper_before(u.text, m.start("name")), end)
    if expected and not u.of("place") and (bare := _BARE.match(u.text)):
        if _is_place(bare.group("name")):
            _add(u, bare.start("name"), bare.end("name"))
    _join_adjacent(u, known)


def _join_adjacent(u: Utterance, known: list[Mention]) -> None:
    """An unknown name right after a place is a landmark there: one place ("강남 교보타워",
    "사당역 파스텔시티"); of two known names the later one stands ("신사역 가로수길" → 가로수길)."""
    places = u.of("place")
    for first, second in zip(places, places[1:], strict=False):
        if not any(second is k for k in known) and u.raw[first.end : second.start].isspace():
            second.start, second.negated = first.start, second.negated or first.negated
            second.value = re.sub(r"\s+", " ", u.raw[second.start : second.end]).strip()
            u.mentions.remove(first)
