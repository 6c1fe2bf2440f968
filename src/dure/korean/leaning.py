"""Messages that lean on the previous turn without pointing at it, and new questions announced
(`dure.korean.followup`'s rules, beside the reference words of `dure.korean.pointing`).

`leans_on_previous_turn`: a bare topic with only a particle ("부산은?"), a condition with no
question of its own ("8일째면?", "계약금액 2억에 17일 늦으면"), a pick from a list, a request to
redo or reformat the previous answer that names nothing else (or, however long, that gives
nothing to make the form from: "…대본처럼 만들어줘"), a question about what the answer rests on.
`switches_topic`: a new question announced ("딴 얘긴데 …", "그건 됐고 …", "이거랑 별개로 …", "아
맞다 …") that names its own subject. `after_thanks`: the question after thanks and "그럼" /
"근데" / "그리고" / "혹시".
`opens_new_question`: either of the last two, when what follows does not lean on the previous turn.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from dure.korean.pointing import CONTENT_TAGS, references_previous_turn
from dure.korean.smalltalk import is_smalltalk
from dure.retrieval.tokenize import tagged as morphemes

__all__ = [
    "after_thanks",
    "asks_to_redo",
    "leans_on_previous_turn",
    "names_new_topic",
    "opens_new_question",
    "switches_topic",
]

#: What a question about the previous answer itself asks for ("근거는 어떤 법이야?", "출처 링크
#: 있어?", "계산 기준이 뭐야?"): a message naming only these nouns asks about that answer.
_ANSWER_META = {
    *("근거", "출처", "링크", "원문", "조항", "법조항", "조문", "번호", "법", "법령", "법적"),
    *("이유", "자료", "계산", "판단", "기준", "공식", "수치", "숫자", "문구", "표현", "뜻"),
}


def _asks_about_answer(morphs: Sequence[tuple[str, str]]) -> bool:
    """Only nouns of `_ANSWER_META` named: a question about the previous answer's basis."""
    nouns = [f for f, t in morphs if t.startswith(("NNG", "NNP", "SL", "SH"))]
    return bool(nouns) and all(n in _ANSWER_META for n in nouns)


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


def _bare_condition(text: str, morphs: Sequence[tuple[str, str]]) -> bool:
    """A message ending in "…면?" that asks nothing of its own (see `_BARE_CONDITION`)."""
    if not _BARE_CONDITION.search(text):
        return False
    numbers = len(re.findall(r"\d+", text))
    if len(text.strip()) <= _CONDITION_CHARS:
        return numbers <= 1
    nouns = [f for f, t in morphs if t in ("NNG", "NNP", "SL")]
    if len(nouns) > _CONDITION_NOUNS or _HOW_TO.search(text):
        return False
    return not (numbers > 1 and _SUM.search(text))


def _redo_request(morphs: Sequence[tuple[str, str]]) -> bool:
    content = [f.lower() for f, t in morphs if t.startswith(CONTENT_TAGS)]
    return any(w in _REDO for w in content) and all(
        w in _REDO or w in _REDO_FILLERS or w.isdigit() for w in content
    )


#: The user announces a new question ("다른 질문인데", "딴 얘긴데", "새로 물어볼게", "그건 그렇고",
#: "저거 말고요, …", "다른 건데", "번외로", "갑자기 궁금한데", "아 맞다 …").
_SWITCH = re.compile(
    r"(?:다른|새|새로운|딴|별개|별도)\s*(?:의\s*)?(?:질문|얘기|얘긴|이야기|이야긴)"
    r"|(?:다른|딴)\s*(?:거|걸|것)\s*(?:하나\s*)?(?:만\s*)?(?:좀\s*)?(?:더\s*)?물어"
    r"|새로\s*(?:하나\s*)?(?:물어|질문)"
    # "다른 건데", "딴건데", "번외로", "여담인데", "갑자기 궁금한데", "갑자기 생각났는데"
    r"|(?:다른|딴)\s*(?:건|거인?)\s*데|번외로|번외인데|여담(?:인데|으로|이지만)"
    r"|갑자기\s*(?:궁금(?:한|해진|해졌는)|생각(?:난|났는|나서|이\s*났는))"
    # Remembering something else to ask ("아 맞다 …", "아 그리고 …"), as a message opens.
    r"|^\s*아\s*(?:맞다|그리고)\b"
    r"|그건\s*그렇고|화제\s*(?:를\s*)?(?:바꿔|돌려)"
    r"|(?:이거|저거|그거|요거)\s*(?:말고|말구)(?:요)?\s*[,.!]"
    # "이거 말고 다른 거 하나만, …", "이 회의록 말고 새로 하나 부탁할게. …"
    r"|(?:이거|저거|그거|요거|이건|그건|(?:이|그|저)\s+\S+)\s*(?:말고|말구)(?:요)?[\s,.]*"
    r"(?:(?:다른|딴)\s*(?:거|것|걸|질문)|새로|(?:질문\s*)?하나\s*(?:만|더))"
    # The previous topic dismissed ("이건 됐고", "그건 알겠고", "그건 나중에 보고"): what
    # follows is new.
    r"|(?:이건|저건|그건|요건|이거|그거|저거)\s*(?:이제\s*)?"
    r"(?:됐고|됐구|됐어|알겠고|알았고|나중에\s*\S*)(?:요)?\s*[,.!]?"
    # Set apart ("이거랑 별개로", "위 내용이랑 상관없는 질문인데").
    r"|(?:이거|그거|저거|이건|그건|그와|이와|(?:위|앞)의?\s*(?:내용|거|것|얘기)"
    r"|(?:위에서|앞에서)\s*(?:말한|한)\s*(?:거|것))"
    r"\s*(?:이랑|랑|하고|와|과)?(?:은|는)?\s*(?:별개로|별개인데|(?:상관|관계)\s*없(?:이|고|는데|는))"
)
#: A question of its own after the announcement names at least this many nouns.
_SWITCH_NOUNS = 2


def switches_topic(text: str) -> bool:
    """Whether `text` announces a new question and then asks one that names its own subject
    ("이거 말고 새 질문인데, 퇴직연금 DC형이 뭐야?"); "그거 말고 다른 거는?" does not. Of several
    announcements ("아 그리고 이거랑 별개로, …") any one will do."""
    return any(_asks_own(text[found.end() :]) for found in _SWITCH.finditer(text))


def _asks_own(rest: str) -> bool:
    """What follows an announcement names its own subject and does not lean on the turn before."""
    morphs = morphemes(rest)
    # A unit after a number or "몇" counts as a noun ("3갤런은 몇 리터야": both are bound).
    nouns = [
        f
        for i, (f, t) in enumerate(morphs)
        if t.startswith(("NNG", "NNP", "SL"))
        or (t == "NNB" and i and (morphs[i - 1][1] == "SN" or morphs[i - 1][0] == "몇"))
    ]
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


#: The answer made into a form, however the form is described ("고객센터 전화할 때 읽을 대본처럼
#: 만들어줘", "공정엔지니어 버전으로 바꿔줘"): with no object and nothing pasted, there is nothing
#: to make it from but the previous answer (of the bank, dev and dev2's 66 such messages the rules
#: left open, 64 leaned on it; the two that did not asked for a topic "시험용으로 정리해줘").
_MADE_INTO = re.compile(
    r"(?:으로|로|처럼)\s*(?:좀\s*)?(?:다시\s*)?"
    r"(?:써|바꿔|정리해|만들어|줄여|고쳐|옮겨|번역해|요약해)\s*(?:줘|주세요|줄래|봐)"
)


def _named_after(rest: str) -> bool:
    """What follows a request is only nouns: what to make, named after the verb ("엑셀로 만들어줘
    가계부")."""
    after = [t for _, t in morphemes(rest) if not t.startswith(("SF", "SP", "SE"))]
    return bool(after) and all(t.startswith(("NNG", "NNP", "SL")) for t in after)


def leans_on_previous_turn(text: str) -> bool:
    """Whether `text` names nothing of its own beyond a topic, a condition, a pick or a way to
    redo an answer: a bare topic with a particle ("부산은?", "SRT는?", "광주도 알려줘"), a
    condition ("8일째면?", "위반하면?", "계약금액 2억에 17일 늦으면"), one of the things listed before ("둘 중에 뭐가 싸?",
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
    morphs = morphemes(text)
    if _bare_condition(text, morphs):
        return True
    if len(bare) <= _REDO_CHARS and (_redo_request(morphs) or _reformat_request(morphs)):
        return True
    made = _MADE_INTO.search(text)
    if made and not any(t == "JKO" for _, t in morphs) and not _named_after(text[made.end() :]):
        return True
    if _asks_about_answer(morphs):
        return True
    nouns = [f for f, t in morphs if t.startswith(("NN", "NR", "SL", "SN"))]
    short = len(nouns) <= _BARE_NOUNS and len("".join(nouns)) <= _BARE_CHARS
    return short and _bare_topic(morphs)


#: Thanks (laughter alone is not), then "그럼" / "근데" / "그리고" / "혹시" and a question: the thanks
#: closed the previous turn, so the conjunction opens a new one ("고마워! 근데 내일 부산 날씨는?",
#: "감사합니다~ 혹시 …": of the bank, dev and dev2's 77 messages opening with thanks then "그리고" or
#: "혹시", all asked something new).
_THANKS_THEN = re.compile(
    r"^(?P<thanks>.+?)\s*(?:그럼|그러면|근데|그런데|(?:아\s*)?그리고|혹시)\s+(?P<rest>\S.*)$",
    re.DOTALL,
)
_THANKS = re.compile(r"고마|고맙|감사|ㄱㅅ|ㄳ|땡큐|thank|thx", re.IGNORECASE)


def after_thanks(text: str) -> str | None:
    """What follows thanks and "그럼" / "근데" ("고마워! 근데 내일 부산 날씨는?" → "내일 부산 날씨는?";
    "아하 감사합니다 그럼 …", "알겠어 고마워 ㅎㅎ 그럼 …": interjections and acknowledgements
    around the thanks too), or None when the message does not open so."""
    thanked = _THANKS_THEN.match(text.strip())
    if not thanked or not _THANKS.search(thanked["thanks"]):
        return None
    if is_smalltalk(thanked["thanks"]):
        return thanked["rest"]
    return None


def opens_new_question(text: str) -> bool:
    """Whether `text` closes the previous turn (thanks, or a new question announced) and asks a
    question that does not lean on it."""
    rest = after_thanks(text)
    if rest is not None:
        return not (references_previous_turn(rest) or leans_on_previous_turn(rest))
    return switches_topic(text)


def asks_to_redo(text: str) -> bool:
    """A request to redo or reformat the previous answer that names nothing else ("영어로",
    "중학생도 알아듣게 다시 말해줘", "한 줄로 요약 ㄱㄱ")."""
    morphs = morphemes(text)
    return _redo_request(morphs) or _reformat_request(morphs)


def names_new_topic(text: str, earlier: Sequence[str]) -> bool:
    """Whether `text` names a subject (a noun of two characters or more, not one about the answer
    itself) that none of the `earlier` texts holds: "책임자 바꾸려면?" after a turn on 계약 해지
    leans on that turn in form only, and what it asks is found elsewhere."""
    held = re.sub(r"\s", "", " ".join(earlier)).lower()
    return any(
        len(form) >= 2 and form not in _ANSWER_META and form not in _REDO and form not in held
        for form, tag in morphemes(text)
        if tag.startswith(("NNG", "NNP", "SL"))
    )
