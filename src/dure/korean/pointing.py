"""Words that point at the previous turn, read from Kiwi morphemes (`dure.korean.followup`'s
rules; scope reads them too).

`references_previous_turn`: reference words ("그", "그거", "이 조항", "저거", "거기", "두 번째
거", "말씀하신 거", "해당 조항", "방금", "아까", "그럼", "위에서", "더 자세히", "왜?"), as
morphemes, so "그림", "그룹" and "아까시나무" do not count; not after the message's own clause
("사람이 있는데 그 사람이"), nor "아까" in a story of the user's own day ("아까 은행 갔더니"). `leans_on_previous_turn`: a bare topic
with only a particle ("부산은?"), a short condition ("8일째면?"), a pick from a list, a request to
redo or reformat the previous answer that names nothing else, a question about what the answer
rests on. `switches_topic`: a new question announced ("딴 얘긴데 …", "그건 됐고 …") that names
its own subject.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from dure.retrieval.tokenize import tagged as morphemes

_WHY_ONLY = re.compile(r"^\s*왜(?:요)?\s*[?？!.]*\s*$")

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
#: What a question about the previous answer itself asks for ("근거는 어떤 법이야?", "출처 링크
#: 있어?", "계산 기준이 뭐야?"): a message naming only these nouns asks about that answer.
_ANSWER_META = {
    *("근거", "출처", "링크", "원문", "조항", "법조항", "조문", "번호", "법", "법령", "법적"),
    *("이유", "자료", "계산", "판단", "기준", "공식", "수치", "숫자", "문구", "표현", "뜻"),
}
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


def references_previous_turn(text: str) -> bool:
    """Whether `text` points back at the previous turn ("그 조항", "그럼", "아까", "왜?" …).

    Works on morphemes: "그" must be a determiner (MM), "아까" an adverb or noun of its own,
    so words that merely contain these syllables ("그림", "그룹", "아까시나무") do not count.
    """
    if _WHY_ONLY.match(text) or _questions_answer(text):
        return True
    morphs = morphemes(text)
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


#: A first sentence made only of these asks whether the previous answer holds ("확실해?",
#: "진짜야?", "최신 정보 맞아?", "계산 맞아?", "왜 안 돼?").
_DOUBT = {"확실", "확실하", "진짜", "정말", "정확", "정확하", "사실", "맞", "틀리", "거", "것"}
_DOUBT |= {"최신", "정보", "계산", "말"}
_WHY_NOT = {"왜", "안", "못", "되", "그렇", "그러", "그런", "거", "것"}
_FIRST_SENTENCE = re.compile(r"^[^?？!.]*[?？]")
#: "어디서 나온 내용이야?", "어디서 본 정보예요?": where the previous answer came from.
_WHENCE = re.compile(
    r"어디(?:서|에서)\s*(?:본|나온|찾은|가져온)\s*(?:정보|내용|말|얘기|거|건|자료)"
)


def _questions_answer(text: str) -> bool:
    """The message opens by doubting or asking the source of the previous answer."""
    if _WHENCE.search(text):
        return True
    first = _FIRST_SENTENCE.match(text.strip())
    if first is None:
        return False
    content = [f for f, t in morphemes(first.group()) if t.startswith(_CONTENT)]
    if not content:
        return False
    return all(w in _DOUBT for w in content) or ("왜" in content and set(content) <= _WHY_NOT)


def _pointer(form: str, tag: str) -> bool:
    """A determiner, pronoun or conjunction that may point at something said before."""
    if tag == "MM":
        return form in ("그", "이", "저")
    if tag == "NP":
        return form in _REF_PRONOUNS or form in _LEADING_PRONOUNS
    return tag == "MAJ" and form in _REF_CONJUNCTIONS


#: Nouns a clause needs before a pointer for the message to have said what it points at.
_INTRO_NOUNS = 2


def _introduced(before: Sequence[tuple[str, str]]) -> bool:
    """The message said what a pointer points at: a clause of its own with two nouns or more,
    closed by a connective ("새로 온 사람이 있는데 그 사람이", "쿠키 있잖아, 그거", "잔금일인데
    그날", "감봉 처분하면 그 징계는", "용종 있다고 했었는데 그러면")."""
    words = [(f, t) for f, t in before if not t.startswith("S") or t == "SL"]
    if not words or not (words[-1][1] == "EC" or words[-1][0] in ("잖아", "잖아요")):
        return False
    return sum(t in ("NNG", "NNP", "SL") for _, t in words) >= _INTRO_NOUNS


def _story(nxt: tuple[str, str]) -> bool:
    """ "아까"/"방금" before a noun of the user's own day ("아까 은행 갔더니", "아까 점심때"),
    not before what was said ("아까 말씀하신", "방금 답변", "방금 거")."""
    return nxt[1] in ("NNG", "NNP") and nxt[0] not in _REF_OBJECTS | _THING | _TOLD


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


def _asks_about_answer(morphs: Sequence[tuple[str, str]]) -> bool:
    """Only nouns of `_ANSWER_META` named: a question about the previous answer's basis."""
    nouns = [f for f, t in morphs if t.startswith(("NNG", "NNP", "SL", "SH"))]
    return bool(nouns) and all(n in _ANSWER_META for n in nouns)


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


def _opens(before: Sequence[tuple[str, str]]) -> bool:
    """Nothing but symbols, interjections or conjunctions before (the message opens here)."""
    return all(t.startswith("S") or t in ("IC", "MAJ") for _, t in before)


def _remake_request(after: Sequence[tuple[str, str]]) -> bool:
    """A verb that makes the answer again, asked for ("뽑아줘", "써 줘"), not "쓰는 법"."""
    if not after or after[0][0] not in _REMAKE_VERBS or not after[0][1].startswith("VV"):
        return False
    return any(f == "주" and t == "VX" for f, t in after[1:3])


#: Morpheme tags that carry content (nouns, verbs, adjectives, adverbs, determiners, numbers).
_CONTENT = ("NN", "NP", "NR", "SL", "SN", "XR", "VV", "VA", "MAG", "MM")
#: What a request to redo the previous answer is made of: a way to redo it, then words that
#: name no topic of their own. All of a message's content must come from these two sets.
_REDO = {
    *("번역", "요약", "정리", "설명", "예시", "예", "근거", "출처", "뜻", "요점", "핵심", "표"),
    *("반말", "존댓말", "쉽", "짧", "자세히", "자세", "간단히", "간단", "다시", "왜", "진짜"),
    *("정말", "확실", "영어", "일본어", "중국어", "한국어", "english", "summary", "translate"),
    "줄이",
}
_REDO_FILLERS = {"좀", "더", "한", "두", "세", "줄", "번", "말", "무슨", "들", "하", "주", "알리"}
_REDO_FILLERS |= {"보이", "바꾸", "풀", "쓰", "뭐", "버전", "그렇", "이렇", "좋"}
#: More nouns or characters than this, a message says more than a topic or a request
#: ("내일 대구 날씨도 알려줘" is a question of its own).
_BARE_NOUNS = 2
_BARE_CHARS = 6
_REDO_CHARS = 25
#: A pasted text ("번역해줘: …", quotes) brings its own content.
_PASTED = re.compile(r"[:'\"“”‘’「」]")
#: A condition with no question of its own ("8일째면?", "하루 20분만 하면?", "계약금액 2억에 17일
#: 늦으면"): what happens then is the previous turn's matter. Two numbers or more may be a sum
#: of its own ("10에서 3 빼면?"); a longer "…하려면?" may ask how to do something of its own
#: ("딕셔너리를 값 기준으로 정렬하려면?").
_BARE_CONDITION = re.compile(r"면\s*[?？]*\s*$")
_HOW_TO = re.compile(r"려면\s*[?？]*\s*$")
_SUM = re.compile(r"나누|나눠|더하|더해|곱하|곱해|빼")
_CONDITION_CHARS = 13
#: A longer condition naming more nouns than this may say what it asks ("주말에 대전에서 청주까지
#: 차로 가면?").
_CONDITION_NOUNS = 3
#: One of the things the previous answer listed ("둘 중에 뭐가 싸?", "두 번째 거 자세히").
_PICK = re.compile(
    r"[둘셋]\s*중|[두세네]\s*개\s*중|(?:첫|두|세|네)\s*번째\s*(?:거|꺼|것|건|걸|게)|마지막\s*(?:거|꺼|것)"
)
#: After a bare topic's particle, only a generic request may follow ("광주도 알려줘", "부산은 어때?").
_GENERIC = {"알리", "어떻", "어떠", "보이", "주"}


#: The particles that leave a bare topic's question open ("부산은?", "광주도").
_TOPIC_PARTICLES = {("은", "JX"), ("는", "JX"), ("ᆫ", "JX"), ("도", "JX")}


def _bare_topic(morphs: Sequence[tuple[str, str]]) -> bool:
    """Nouns, a topic particle, then nothing but endings or a generic request."""
    words = [(f, t) for f, t in morphs if not t.startswith("S") or t in ("SL", "SN")]
    i = 0
    while i < len(words) and words[i][1].startswith(("NN", "NR", "SL", "SN", "XSN")):
        i += 1
    if i == 0 or i == len(words) or words[i] not in _TOPIC_PARTICLES:
        return False
    rest = words[i + 1 :]
    return all(f in _GENERIC or f == "요" or t.startswith(("E", "JX", "VX")) for f, t in rest)


def _bare_condition(text: str) -> bool:
    """A message ending in "…면?" that asks nothing of its own (see `_BARE_CONDITION`)."""
    numbers = len(re.findall(r"\d+", text))
    if len(text.strip()) <= _CONDITION_CHARS:
        return numbers <= 1
    nouns = [f for f, t in morphemes(text) if t in ("NNG", "NNP", "SL")]
    if len(nouns) > _CONDITION_NOUNS or _HOW_TO.search(text):
        return False
    return not (numbers > 1 and _SUM.search(text))


def _redo_request(morphs: Sequence[tuple[str, str]]) -> bool:
    content = [f.lower() for f, t in morphs if t.startswith(_CONTENT)]
    return any(w in _REDO for w in content) and all(
        w in _REDO or w in _REDO_FILLERS or w.isdigit() for w in content
    )


#: The user announces a new question ("다른 질문인데", "딴 얘긴데", "그건 그렇고", "저거 말고요, …").
_SWITCH = re.compile(
    r"(?:다른|새|새로운|딴)\s*(?:질문|얘기|얘긴|이야기|이야긴)"
    r"|(?:다른|딴)\s*(?:거|걸|것)\s*(?:하나\s*)?(?:만\s*)?(?:좀\s*)?(?:더\s*)?물어"
    r"|그건\s*그렇고|화제\s*(?:를\s*)?(?:바꿔|돌려)"
    r"|(?:이거|저거|그거|요거)\s*(?:말고|말구)(?:요)?\s*[,.!]"
    # The previous topic dismissed ("이건 됐고", "그건 나중에 보고"): what follows is new.
    r"|(?:이건|저건|그건|요건|이거|그거|저거)\s*(?:됐고|됐구|됐어|나중에\s*\S*)(?:요)?\s*[,.!]?"
    # Set apart ("이거랑 별개로", "그거랑 상관없이").
    r"|(?:이거|그거|저거|이건|그건|그와|이와)\s*(?:랑|하고|와|과)?\s*(?:별개로|상관\s*없이|관계\s*없이)"
)
#: A question of its own after the announcement names at least this many nouns.
_SWITCH_NOUNS = 2


def switches_topic(text: str) -> bool:
    """Whether `text` announces a new question and then asks one that names its own subject
    ("이거 말고 새 질문인데, 퇴직연금 DC형이 뭐야?"); "그거 말고 다른 거는?" does not."""
    found = _SWITCH.search(text)
    if found is None:
        return False
    rest = text[found.end() :]
    nouns = [f for f, t in morphemes(rest) if t.startswith(("NNG", "NNP", "SL"))]
    return (
        len(nouns) >= _SWITCH_NOUNS
        and not references_previous_turn(rest)
        and not leans_on_previous_turn(rest)
    )


#: What an answer can be made into ("메일로 써줘", "문자처럼 다듬어줘", "내용증명 초안으로 작성해줘").
_FORMATS = {
    *("메일", "이메일", "문자", "카톡", "메시지", "편지", "공문", "내용", "증명", "초안", "표"),
    *("보고서", "요약본", "글", "게시글", "안내문", "공지", "공지문", "문서", "양식", "형식"),
    *("버전", "리스트", "목록", "슬라이드", "블로그", "포스팅", "발표", "대본", "말투", "문장"),
}
_REFORMAT_VERBS = {"쓰", "작성", "다듬", "바꾸", "만들", "정리", "고치", "옮기", "번역", "변환"}
_AS = {"로", "으로", "처럼", "같이"}
_TO_SOMEONE = {"한테", "에게", "께", "에"}


def _reformat_request(morphs: Sequence[tuple[str, str]]) -> bool:
    """A request to make something into a format that names nothing to make it from: no
    object, and no noun but the format and whom it is for ("집주인한테 보낼 문자처럼 다듬어줘")."""
    if any(t == "JKO" for _, t in morphs) or not any(f in _REFORMAT_VERBS for f, _ in morphs):
        return False
    formatted = False
    words = [(f, t) for f, t in morphs if t != "XSN"]  # "팀장님께": the noun, then "께"
    for i, (form, tag) in enumerate(words):
        nxt = words[i + 1] if i + 1 < len(words) else ("", "")
        if not tag.startswith(("NNG", "NNP", "SL")) or form in _REFORMAT_VERBS:
            continue
        if form.lower() in _FORMATS and (nxt[0] in _AS or nxt[0].lower() in _FORMATS):
            formatted = formatted or nxt[0] in _AS
        elif nxt[0] not in _TO_SOMEONE:
            return False
    return formatted


def leans_on_previous_turn(text: str) -> bool:
    """Whether `text` names nothing of its own beyond a topic, a condition, a pick or a way to
    redo an answer: a bare topic with a particle ("부산은?", "SRT는?", "광주도 알려줘"), a short
    condition ("8일째면?", "위반하면?"), one of the things listed before ("둘 중에 뭐가 싸?",
    "두 번째 거 자세히"), or a request to redo the previous answer ("영어로", "한 줄로 요약 ㄱㄱ",
    "더 쉽게 설명해줘", "근거는?", "진짜?").

    With a previous turn, such a message cannot be answered without it. Article references
    ("제10조는?") and pasted text are not this (the caller checks articles first).
    """
    if _PASTED.search(text):
        return False
    if _PICK.search(text):
        return True
    bare = re.sub(r"\s", "", text)
    if _BARE_CONDITION.search(text) and _bare_condition(text):
        return True
    morphs = morphemes(text)
    if len(bare) <= _REDO_CHARS and (_redo_request(morphs) or _reformat_request(morphs)):
        return True
    if _asks_about_answer(morphs):
        return True
    nouns = [f for f, t in morphs if t.startswith(("NN", "NR", "SL", "SN"))]
    short = len(nouns) <= _BARE_NOUNS and len("".join(nouns)) <= _BARE_CHARS
    return short and _bare_topic(morphs)
