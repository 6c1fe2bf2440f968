"""Which foods a sentence negates: the scope of "말고", "빼고", "싫어", "못 먹어", "알레르기" …

The items are the foods the extractors found (dishes, kinds of food, ingredients), as spans of
the raw text. A cue after them (postposed: "짬뽕 말고", "해산물은 다들 별로", "고기는 우리 팀
전부 안 먹어") negates the nearest item before it when the words between are only particles and
fillers — no clause ends between them ("짜장면 먹고 싶은데 매운 건 싫어" negates 매운, not
짜장면). A list introduced by a cue (preposed: "알레르기: 우유, 땅콩", "못 먹는 건 고기랑 생선")
negates the items after it. Items joined to a negated one ("굴이나 홍합 같은 조개류", "새우, 게")
share its fate: by a conjunction, whatever their kinds; by a bare comma or space, only items of
the same kind ("짜장면, 짬뽕 빼고" both; "한식, 매운 거 빼고" only 매운).

Rules only: cues and endings are closed lists, typos of 알레르기 included.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

#: 알레르기 as people type it: 알러지, 알래르기, 알르레기, 앨러지, allergy.
ALLERGY = r"(?:알\s?[레래러르]\s?[르레러]?\s?[기지]|앨\s?[러레]\s?[지기]|알러쥐|allerg(?:y|ies|ic))"
_EAT = r"(?:먹|머|드시|드세|드셔|드|들|마시|마셔|마실|마신)"
#: A cue after the food: the food is excluded.
_POSTPOSED = re.compile(
    r"말고|말곤|말구|[빼뺴](?:고|곤|요|야|라|면|구|셈|자|서|는|도)|[빼뺴]\s*(?:줘|주|달)|뺀|뺄|빠진|"
    r"제외|없이|없는|없고|없었으면|안\s*넣|"
    rf"(?:못|안)\s*{_EAT}|{_EAT}지\s*(?:않|마|말|못)|"
    rf"(?:{_EAT}|들어가|넣으|넣)(?:으면|면)\s*(?:안\s*[돼되됨됩]|큰일|탈|두드러기)|"
    r"안\s*(?:맞|받|돼|되|됨|됩|들어|좋아|땡|당겨)|(?:땡기|당기)지\s*않|못\s*(?:해|함|하)|불가|"
    r"아닌\s*(?:거|걸|것|데|곳|메뉴|음식)|아니었으면|아니면\s*(?:좋|돼|되|괜찮|ok)|아니어야|"
    r"좀\s*그(?:래|렇)|비선호|거르|걸러|됐(?:고|어)|"
    r"싫(?!지\s*않|진\s*않)|시러|별로(?!\s*(?:상관|안\s*가려))|별루|패스|사양|노노|ㄴㄴ|"
    r"(?<![A-Za-z])(?:no|ng)(?![A-Za-z])|"
    r"금지|금물|피해|피하|피했|프리|free|질렸|질려|질림|물렸|물려|끊었|끊어|끊는|"
    r"쥐약|약해|약함|약한\s*편|힘들어|힘듦|무리|"
    rf"{ALLERGY}(?!\s*(?:는|은|가|이)?\s*없)",
    re.IGNORECASE,
)
#: A cue before a list of foods ("알레르기: 우유", "못 먹는 건 고기", "no pork").
_PREPOSED = re.compile(
    rf"(?:{ALLERGY}|(?:못|안)\s*{_EAT}는|제외할|빼야\s*(?:할|하는|될|되는)|피해야\s*(?:할|하는))"
    r"(?:\s*(?:거|것|건|게|음식|재료|식품|메뉴))?"
    r"|\b(?:no|non|not|without|zero)\b",
    re.IGNORECASE,
)
_PREPOSED_GAP = re.compile(
    r"^(?:\s|[:：=,\-–]|[은는이가]|좀|있(?:는데|어서|어요|고|음|어|습니다|는)"
    r"|(?:거|것|건|게|음식|재료|식품)(?:은|는|이|가)?)*$"
)
#: Between two foods of a list, whatever their kinds.
_JOIN = re.compile(
    r"^\s*(?:[은는이가을를도만]\s*)?"
    r"(?:이랑|랑|하고|과|와|이나|나|및|또는|혹은|아니면|이든|든|같은|등|/|·|&|\+|,|or|and)?"
    r"\s*(?:[은는을를도]\s*)?$",
    re.IGNORECASE,
)
_BARE_JOIN = re.compile(r"^\s*,?\s*$")
#: Where a clause ends: a word with a connective or final ending ("먹고", "싶은데", "좋아").
_CLAUSE_END = re.compile(
    r"(?:고|데|지만|면|며|거나|든지|요|죠|네|자|어|아|야|지|게|래|음|임|함|됨|다)$"
)
#: Connective endings that a topic ("제육은 어제 먹어서 질렸어") may span.
_REASON = re.compile(r"(?:서|니까|니)$")
_CLAUSE_MARK = re.compile(r"[.!?;\n,\d]")
#: Words the cue may be about instead of the food ("삼겹살 저녁 말고 점심에").
_OTHER_OBJECT = re.compile(r"아침|점심|저녁|오늘|내일|모레|주말|평일|시간|장소|자리")
#: Quantifiers ending in 다 ("둘다", "셋다", "죄다") are fillers too, not a clause's end.
_FILLERS = frozenset(
    "다 좀 잘 꼭 또 거 건 걸 게 것 전부다 모두다 둘다 셋다 넷다 죄다 그냥 아예".split()
)
MAX_GAP_CHARS, MAX_GAP_WORDS = 24, 5


@dataclass(frozen=True)
class Item:
    """A food in the text: its span and its kind ("dish", "kind" or "ingredient")."""

    start: int
    end: int
    kind: str


def same_clause(gap: str) -> bool:
    """Only particles and fillers in `gap` (between a food and the cue after it): no clause
    ends in it."""
    if len(gap) > MAX_GAP_CHARS or _CLAUSE_MARK.search(gap) or "다른" in gap:
        return False
    if _OTHER_OBJECT.search(gap):
        return False
    words = gap.split()
    if len(words) > MAX_GAP_WORDS:
        return False
    topic = bool(words) and not gap[:1].isspace() and words[0] in ("은", "는", "도")
    for i, word in enumerate(words):
        word = word.strip("()[]~ㅠㅜ")
        if (i == 0 and not gap[:1].isspace()) or word in _FILLERS or len(word) < 2:
            continue  # the food's own particle, or a one-letter filler
        if _CLAUSE_END.search(word) or (_REASON.search(word) and not topic):
            return False
        if _POSTPOSED.search(word):
            return False
    return True


def _joined(text: str, a: Item, b: Item) -> bool:
    gap = text[a.end : b.start]
    return bool(_JOIN.match(gap)) and (a.kind == b.kind or not _BARE_JOIN.match(gap))


def negated(text: str, items: list[Item], others: Sequence[tuple[int, int]] = ()) -> set[int]:
    """The indices of `items` (in text order) that a cue negates; `others` are spans of other
    things said (places, times): a cue after one of them is about it, not the food before."""
    out: set[int] = set()

    def between(start: int, end: int) -> bool:
        return any(start <= s < end for s, _ in others)

    def spread(i: int, step: int) -> None:
        out.add(i)
        j = i + step
        while 0 <= j < len(items):
            first, second = (items[j], items[j - step]) if step < 0 else (items[j - step], items[j])
            if not _joined(text, first, second):
                break
            out.add(j)
            j += step

    for cue in _POSTPOSED.finditer(text):
        before = [i for i, it in enumerate(items) if it.end <= cue.start()]
        gap = (items[before[-1]].end, cue.start()) if before else (0, 0)
        if before and same_clause(text[gap[0] : gap[1]]) and not between(*gap):
            spread(before[-1], -1)
    for cue in _PREPOSED.finditer(text):
        before = [i for i, it in enumerate(items) if it.end <= cue.start()]
        if before and before[-1] in out and not text[items[before[-1]].end : cue.start()].strip():
            continue  # "새우 알레르기 있는데 …": the cue already took the food before it
        after = [i for i, it in enumerate(items) if it.start >= cue.end()]
        if after and _PREPOSED_GAP.match(text[cue.end() : items[after[0]].start]):
            spread(after[0], 1)
    return out
