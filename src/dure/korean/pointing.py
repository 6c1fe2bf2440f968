"""Words that point at the previous turn, read from Kiwi morphemes (`dure.korean.followup`'s
rules; scope reads them too; `dure.korean.leaning` has the messages that lean on it without
pointing).

`references_previous_turn`: reference words ("그", "그거", "이 조항", "저거", "거기", "두 번째
거", "말씀하신 거", "해당 조항", "방금", "아까", "그럼", "위에서", "더 자세히", "왜?"), as
morphemes, so "그림", "그룹" and "아까시나무" do not count; not after the message's own clause
("사람이 있는데 그 사람이"), nor "아까" in a story of the user's own day ("아까 은행 갔더니"); a
doubt about the previous answer or a question of its source ("확실해?", "어디서 나온
내용이야?"); "반대로 …" opening the message.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from dure.korean.text import QUOTED
from dure.retrieval.tokenize import tagged as morphemes

_WHY_ONLY = re.compile(r"^\s*왜(?:요)?\s*[?？!.]*\s*$")
#: "Conversely" opening a message: the other side of what was just said ("반대로 집주인이 …").
_CONVERSELY = re.compile(r"^\s*(?:반대로|거꾸로|그\s*반대로)[\s,]")

_REF_PRONOUNS = {"그거", "그것", "그건", "그게", "저거", "저것", "이거", "이것", "요거", "요것"}
#: These point back only before the message names anything itself ("거기 주차 돼?"); after
#: it, they may point at what it named ("'그 외 비용' 항목 있던데 거기엔 뭐가 포함돼?").
_LEADING_PRONOUNS = {"거기", "걔", "얘", "그분", "그쪽"}
#: What was told ("말씀하신 거", "추천해준 곳", "알려준 방법"): the previous answer's content,
#: unless someone else is named as having told it ("친구가 추천해준 곳").
_TOLD = {"말씀", "얘기", "이야기", "언급", "설명", "추천", "소개", "알리", "말하"}
#: What "이 …" / "저 …" may point at besides the previous turn: the user's own document or
#: situation ("이 계약서", "이 시간에"), so these stay open.
_HERE_NOUNS = {
    "계약서",
    "계약",
    "문서",
    "약관",
    *("논문", "설명서", "매뉴얼", "책", "기사", "보고서", "공문", "동의서", "서류", "방침"),
    "규약",
    "규정",
    "규칙",
    "파일",
    "글",
    "사이트",
    "앱",
    "회사",
    "집",
    "동네",
    "근처",
    "시간",
    "날",
    "주",
    "달",
    "해",
    "세상",
    "나라",
    "나이",
}
#: Ordinals that pick an item of the previous answer's list ("두 번째 거", "마지막 꺼").
_ORDINAL_HEADS = {"첫", "두", "세", "네", "다섯", "마지막"}
_THING = {"거", "꺼", "것"}
_REF_CONJUNCTIONS = {"그럼", "그러면", "그렇다면", "그래서", "그런데", "그러니까"}
_REF_ADVERBS = {"방금", "아까", "앞서", "조금전", "아까는"}
_REF_PLACES = {"위", "앞"}
_REF_TIMES = {"이전", "직전", "방금", "아까"}
_REF_OBJECTS = {"답변", "대답", "답", "말", "내용", "질문", "설명"}
#: What "위" ("above") points at when it opens a message ("위 조항", "위 내용 표로"): the previous
#: answer's parts, not the stomach ("위 내시경", "위 건강").
_ABOVE_OBJECTS = _REF_OBJECTS | {
    "조항",
    "표",
    "목록",
    "리스트",
    "문장",
    "코드",
    "글",
    "예시",
    "거",
    "것",
}
_ABOVE_OBJECTS |= {"결과", "요약", "번역", "링크"}
#: Ways to ask for the previous answer again, made another way ("다시 뽑아줘", "다시 써 줘").
_REDO_VERBS = {"설명", "말", "정리", "요약", "알리"}
_REMAKE_VERBS = {"뽑", "쓰", "짜", "만들"}
_DETAIL = {"자세히", "구체적", "자세하", "구체적으로", "상세히"}
_TOPMOST = {"맨", "제일", "가장"}
#: "그 외", "그 밖의": "other", which may or may not lean on the previous turn (left open).
_OTHER = {"외", "밖"}


#: What "이 …" points at, shown in the message itself: text after a colon, code or an error
#: ("이 문장 일본어로 해줘: …", "이 수식 왜 에러 나? =IF(…", "이 에러 뭐야 ZeroDivisionError").
#: (A colon between digits is a time: "이 일정 3:30 시작 맞아?" still points back.)
_SHOWN = re.compile(
    r"(?<!\d)[:：](?!\d)\s*\S.{5,}|[A-Za-z]+Error\b|=\s*[A-Z]+\(|\bdef\s|\bSELECT\b", re.I
)


#: What was said, quoted back with no one else as its speaker ("2영업일이라고 하셨는데 주말 끼면?",
#: "1398.5원이라고 했는데 엔화는?"): of the bank, dev and dev2's 26 such messages with no speaker
#: before the quote, all leaned on the previous turn ("팀장님이 …라고 하셨는데" has its own).
_SAID_BACK = re.compile(
    r"(?:이라|라|다)고\s*(?:하셨|말씀하셨|했|말했|하신|한)(?:는데|잖아|죠|지|던데)"
)


def references_previous_turn(text: str) -> bool:
    """Whether `text` points back at the previous turn ("그 조항", "그럼", "아까", "왜?" …).

    Works on morphemes: "그" must be a determiner (MM), "아까" an adverb or noun of its own,
    so words that merely contain these syllables ("그림", "그룹", "아까시나무") do not count.
    """
    if _WHY_ONLY.match(text) or _CONVERSELY.match(text) or _questions_answer(text):
        return True
    shown = bool(_SHOWN.search(text))
    said_back = _SAID_BACK.search(text)
    if said_back and not _has_speaker(morphemes(text[: said_back.start()])):
        return True
    # A quoted phrase is mentioned, not used: its pointers ("'그 당시'라는 말") point nowhere.
    morphs = morphemes(QUOTED.sub(" 문구 ", text))
    for i, (form, tag) in enumerate(morphs):
        nxt = morphs[i + 1] if i + 1 < len(morphs) else ("", "")
        if _pointer(form, tag) and _introduced(morphs[:i]):
            continue
        if form == "그" and tag == "MM" and nxt[0] not in _OTHER:  # not "그 외", "그 밖의"
            return True
        # Opening a message, Kiwi reads "그"/"저" before a noun as an interjection: "그 위반금 …".
        if form in ("그", "저") and tag == "IC" and i == 0 and nxt[1] == "NNG":
            if nxt[0] not in _HERE_NOUNS:
                return True
        if form == "후자" or (form == "전자" and i == 0 and nxt[1] in ("JX", "JKS")):
            return True
        if tag == "NP" and form in _REF_PRONOUNS:
            return True
        if tag == "NP" and form in _LEADING_PRONOUNS and not _names(morphs[:i]):
            return True
        if form in _TOLD and _told_before(morphs[:i], morphs[i + 1 : i + 5]):
            return True
        if form == "해당" and tag == "NNG" and nxt[1] == "NNG" and nxt[0] != "사항":
            return True
        if form in ("이", "저") and tag == "MM" and nxt[1] == "NNG" and nxt[0] not in _HERE_NOUNS:
            if not shown:
                return True
        if form in _ORDINAL_HEADS and _picks_item(form, morphs[i + 1 : i + 4]):
            return True
        if tag in ("MAJ", "IC") and form in _REF_CONJUNCTIONS:
            return True
        if i == 0 and form == "그렇" and tag.startswith("VA"):  # 그렇다면, 그래?
            return True
        if tag.startswith("MA") and form in _REF_ADVERBS and not _story(nxt):
            return True
        if (
            tag == "NNG"
            and form in _REF_PLACES
            and nxt[1] == "JKB"
            and nxt[0] in ("에서", "에")
            and not _located(morphs[:i])
            and not _elsewhere(morphs[i + 2 : i + 4])
        ):
            return True
        if form in _REF_TIMES and nxt[0] in _REF_OBJECTS:
            return True
        if form == "더" and tag == "MAG" and nxt[0] in _DETAIL:
            return True
        if form == "다시" and (nxt[0] in _REDO_VERBS or _remake_request(morphs[i + 1 :])):
            return True
        if form == "위" and tag == "NNG" and _opens(morphs[:i]) and nxt[0] in _ABOVE_OBJECTS:
            return True
    return False


#: Words that doubt or check what was said.
CHECK_WORDS = frozenset({"확실", "확실하", "진짜", "정말", "정확", "정확하", "맞", "틀리"})
_RECHECK = re.compile(r"다시\s*확인")
#: A first sentence made only of these asks whether the previous answer holds ("확실해?",
#: "진짜야?", "최신 정보 맞아?", "계산 맞아?", "왜 안 돼?").
_DOUBT = {*CHECK_WORDS, "사실", "거", "것", "최신", "정보", "계산", "말"}
_WHY_NOT = {"왜", "안", "못", "되", "그렇", "그러", "그런", "거", "것"}
_FIRST_SENTENCE = re.compile(r"^[^?？!.]*[?？]")
#: "어디서 나온 내용이야?", "어디서 본 정보예요?": where the previous answer came from.
_WHENCE = re.compile(
    r"어디(?:서|에서)\s*(?:본|나온|찾은|가져온)\s*(?:정보|내용|말|얘기|거|건|자료)"
)


def checks_answer(text: str) -> bool:
    """Whether `text` anywhere checks what was said: a word of doubt ("맞아?", "확실해?", "진짜
    그렇게 나와 있어요?"), "아니에요?" or "다시 확인"."""
    if _RECHECK.search(text):
        return True
    return any(f in CHECK_WORDS or (f == "아니" and t == "VCN") for f, t in morphemes(text))


def _questions_answer(text: str) -> bool:
    """The message opens by doubting or asking the source of the previous answer."""
    if _WHENCE.search(text):
        return True
    first = _FIRST_SENTENCE.match(text.strip())
    if first is None:
        return False
    content = [f for f, t in morphemes(first.group()) if t.startswith(CONTENT_TAGS)]
    if not content:
        return False
    return all(w in _DOUBT for w in content) or ("왜" in content and set(content) <= _WHY_NOT)


def _has_speaker(before: Sequence[tuple[str, str]]) -> bool:
    """Someone or something named before a quote as its speaker: a subject or a topic
    ("팀장님이", "친구는"), or a source ("뉴스에서")."""
    return any(t in ("JKS", "JX") and f not in ("도", "만") or f == "에서" for f, t in before)


def _pointer(form: str, tag: str) -> bool:
    """A determiner, pronoun or conjunction that may point at something said before."""
    if tag == "MM":
        return form in ("그", "이", "저")
    if tag == "NP":
        return form in _REF_PRONOUNS or form in _LEADING_PRONOUNS
    return tag == "MAJ" and form in _REF_CONJUNCTIONS


#: Nouns a clause needs before a pointer for the message to have said what it points at; a
#: sentence of its own needs more (`_STORY_NOUNS`).
_INTRO_NOUNS = 2
_STORY_NOUNS = 3


def _introduced(before: Sequence[tuple[str, str]]) -> bool:
    """The message said what a pointer points at: a clause of its own with two nouns or more,
    closed by a connective ("새로 온 사람이 있는데 그 사람이", "쿠키 있잖아, 그거", "잔금일인데
    그날", "감봉 처분하면 그 징계는", "용종 있다고 했었는데 그러면"), or a sentence of its own
    with three or more ("아까 대리점 갔는데 직원이 할부원금을 더 올려 적었더라. 이거 …")."""
    words = [(f, t) for f, t in before if not t.startswith("S") or t == "SL"]
    if not words:
        return False
    nouns = sum(t in ("NNG", "NNP", "SL") for _, t in words)
    if words[-1][1] == "EC" or words[-1][0] in ("잖아", "잖아요"):
        return nouns >= _INTRO_NOUNS
    return words[-1][1] == "EF" and nouns >= _STORY_NOUNS


_WHAT_WAS_SAID = _REF_OBJECTS | _THING | _TOLD


def _story(nxt: tuple[str, str]) -> bool:
    """ "아까"/"방금" before a noun of the user's own day ("아까 은행 갔더니", "아까 점심때"),
    not before what was said ("아까 말씀하신", "방금 답변", "방금 거")."""
    return nxt[1] in ("NNG", "NNP") and nxt[0] not in _WHAT_WAS_SAID


def _names(morphs: Sequence[tuple[str, str]]) -> bool:
    return any(t in ("NNG", "NNP", "SL") for _, t in morphs)


def _told_before(before: Sequence[tuple[str, str]], after: Sequence[tuple[str, str]]) -> bool:
    """A verb of telling made a past relative ("말씀하신", "추천해준", "얘기한") with no subject
    of its own before it."""
    if any(t == "JKS" for _, t in before):
        return False
    for form, tag in after:
        if tag == "ETM":
            return form in ("ᆫ", "은")
        if tag not in ("XSV", "EP", "EC", "VX"):
            return False
    return False


def _picks_item(head: str, after: Sequence[tuple[str, str]]) -> bool:
    """ "두 번째 거", "첫 번 째 꺼", "마지막 거": an item of the previous answer's list."""
    forms = [f for f, _ in after]
    counted = False
    while forms and forms[0] in ("번째", "번", "째"):
        forms.pop(0)
        counted = True
    return bool(forms) and forms[0] in _THING and (counted or head == "마지막")


def _located(before: Sequence[tuple[str, str]]) -> bool:
    """ "위에"/"앞에" is a place of its own after a noun or "맨" ("계약서 맨 위에", "문 앞에")."""
    return bool(before) and (before[-1][1].startswith("NN") or before[-1][0] in _TOPMOST)


def _elsewhere(after: Sequence[tuple[str, str]]) -> bool:
    """After "위에"/"위에서": upstairs ("위에 사는"), a direction ("위에서 아래로") or the stomach
    ("위에 안 좋나요"), not the text above."""
    if not after:
        return False
    (form, tag), rest = after[0], after[1:]
    return (
        (form in ("사", "살") and tag == "VV")
        or form in ("아래", "밑")
        or (form in ("좋", "나쁘") and tag.startswith("VA"))
        or (form == "안" and bool(rest) and rest[0][0] in ("좋", "괜찮"))
    )


def _opens(before: Sequence[tuple[str, str]]) -> bool:
    """Nothing but symbols, interjections or conjunctions before (the message opens here)."""
    return all(t.startswith("S") or t in ("IC", "MAJ") for _, t in before)


def _remake_request(after: Sequence[tuple[str, str]]) -> bool:
    """A verb that makes the answer again, asked for ("뽑아줘", "써 줘"), not "쓰는 법"."""
    if not after or after[0][0] not in _REMAKE_VERBS or not after[0][1].startswith("VV"):
        return False
    return any(f == "주" and t == "VX" for f, t in after[1:3])


#: Morpheme tags that carry content (nouns, verbs, adjectives, adverbs, determiners, numbers).
CONTENT_TAGS = ("NN", "NP", "NR", "SL", "SN", "XR", "VV", "VA", "MAG", "MM")
