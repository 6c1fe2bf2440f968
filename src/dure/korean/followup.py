"""Previous-turn reference: does answering a message need the previous turn's content?

Rules first (the words themselves: `dure.korean.pointing`, `dure.korean.leaning`): reference words
("그", "그거", "이 조항", "저거", "거기", "두 번째 거", "말씀하신 거", "해당 조항", "후자", "방금", "아까",
"그럼", "위에서", "더 자세히", "왜?", "확실해?", "어디서 나온 내용이야?") read from Kiwi morphemes, not substrings, so "그림", "그룹"
and "아까시나무" do not count, nor do pointers inside a quoted phrase or a story the message tells
first; a message that names its own articles (unless to check the answer: "5조 맞아?") or is
small talk does not lean on the previous turn; a bare topic with only a particle ("부산은?",
"엔화는?", "광주도 알려줘"), a short condition ("8일째면?"), a pick from a list ("둘 중에 뭐가
싸?"), what is "above" ("위 내용 표로"), a request to make the answer again ("다시 뽑아줘")
and a request to redo the previous answer that names nothing else ("영어로", "3줄
요약ㄱㄱ", "더 쉽게 설명해줘", "근거는?") do; thanks, then "그럼"/"근데"/"그리고"/"혹시" and a
question of its own ("고마워! 근데 내일 부산 날씨는?") does not, nor does a new question announced
("딴 얘긴데 …", "새로 물어볼게 …", "저거 말고요, …", "그건 됐고 …", "이건 나중에 보고 …", "다른
건데 …", "번외로 …", "갑자기 궁금한데 …", "아 맞다 …", "아 그리고 …") that names its own subject (a
unit counts: "1마일은 몇 km야"); a request to make something into a format that names nothing to
make it from ("메일로 써줘", "집주인한테 보낼 문자처럼 다듬어줘", however long: "고객센터 전화할 때
읽을 대본처럼 만들어줘") leans on the previous answer, and so does what was said quoted back with no
other speaker ("2영업일이라고 하셨는데 …"); "맨 위에", "문 앞에" are places.
Then the example bank (tier 2); only what it leaves open goes to the `fast`
model (a bounded JSON judgement).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from dure.documents.refs import extract_article_refs
from dure.korean import prompts
from dure.korean.bank import Tier2
from dure.korean.decision import DecidedBy, reported
from dure.korean.leaning import (
    after_thanks,
    leans_on_previous_turn,
    names_new_topic,
    opens_new_question,
)
from dure.korean.pointing import checks_answer, references_previous_turn
from dure.korean.smalltalk import is_smalltalk
from dure.korean.text import korean_sentence
from dure.llm import ModelSet, agenerate_structured

#: Chosen by measurement: logistic regression on the message's e5 vector and its Kiwi morphemes at
#: weight 0.5, never abstaining (e5 alone, 3–15 nearest neighbours, the previous turn as features
#: — concatenated, as similarities or as word overlap — all measured worse; the history of each
#: choice is in the git log of this file). The bank: 1,376 rows written for it (`fb`…`fz`) and
#: 2,088 more (`g…`, nine helpers who saw no code and no blind set, from the labelling rules; rows
#: whose text matched a dev or blind message dropped). Grouped 5-fold CV over all of it (folds by
#: previous turn, scored on the rows the rules leave open): trained on the first 1,376 alone 0.847,
#: on all 0.892 at l2 1e-4 (3e-4 0.887). Against the old bank and l2 1e-3: blind / blind2–6
#: 0.941 / 0.942 / 0.950 / 0.940 / 0.925 / 0.887 → 0.933 / 0.950 / 0.969 / 0.973 / 0.938 / 0.912
#: (pooled 0.930 → 0.946; blind6 0.919 before `bank.EMBED_CHARS`), dev 0.907 → 0.894.
FOLLOWUP_TIER2 = Tier2("followup", "refers_to_previous", l2=1e-4, morphemes=0.5)

#: Characters of each previous message shown to the model.
PREVIOUS_TURN_CHARS = 1500


class PreviousTurnJudgement(BaseModel):
    """The `fast` model's verdict (decision first, one short sentence at most)."""

    need_previous_context: bool
    reasoning: str = Field("", max_length=80, pattern=korean_sentence(80))


@dataclass(frozen=True)
class FollowupResult:
    """Whether answering needs the previous turn, and how that was decided."""

    refers_to_previous: bool
    decided_by: DecidedBy
    reason: str


def followup_by_rules(
    message: str, has_previous: bool, previous_user: str = ""
) -> FollowupResult | None:
    """The rule verdict, or None when only a model can tell.

    `previous_user` is the user's message of the previous turn: when it was only small talk
    ("안녕", "감사합니다"), that turn holds nothing to lean on, whatever the message says.
    """
    if not has_previous:
        return FollowupResult(False, "rule", "이전 대화 없음")
    if is_smalltalk(previous_user):
        return FollowupResult(False, "rule", "이전 대화가 인사뿐")
    if opens_new_question(message):
        return FollowupResult(False, "rule", "앞 대화를 마치고 새 질문")
    if after_thanks(message) is not None:
        return FollowupResult(True, "rule", "인사 뒤에도 이전 대화를 가리키는 말")
    if references_previous_turn(message):
        return FollowupResult(True, "rule", "이전 대화를 가리키는 말")
    # An article named to check the answer ("5조 맞아?", "제52조 다시 확인해줘요") is the answer's:
    # of such messages the bank and dev2 held 7, all leaning on the previous turn.
    if extract_article_refs(message) and not checks_answer(message):
        return FollowupResult(False, "rule", "조항 번호를 직접 언급")
    if is_smalltalk(message):
        return FollowupResult(False, "rule", "인사·감사 표현")
    if leans_on_previous_turn(message):
        return FollowupResult(True, "rule", "주제어·조건만 있거나 이전 답변을 가리키는 말")
    return None


def points_back(message: str, previous_turn: Sequence[Mapping[str, object]]) -> bool:
    """Whether `message` is answered from the previous turn alone: it points back by a word ("그
    조항", "방금"), or by its form ("부산은?", "위반하면?", `leans_on_previous_turn`) while naming
    no subject the previous turn does not hold ("책임자 바꾸려면?" after a turn on 해지 is asked
    of the documents too)."""
    if after_thanks(message) is not None or references_previous_turn(message):
        return True
    earlier = [str(t["content"]) for t in previous_turn]
    return leans_on_previous_turn(message) and not names_new_topic(message, earlier)


def format_previous_turn(previous_turn: Sequence[Mapping[str, object]]) -> str:
    """`사용자: …` / `챗봇: …` lines."""
    who = {"user": "사용자", "assistant": "챗봇"}
    return "\n".join(
        f"{who.get(str(t['role']), str(t['role']))}: {str(t['content'])[:PREVIOUS_TURN_CHARS]}"
        for t in previous_turn
    )


@reported("followup")
async def decide_followup(
    message: str, previous_turn: Sequence[Mapping[str, object]], models: ModelSet
) -> FollowupResult:
    """By rules when they decide, else one bounded `fast` model call.

    Raises `StructuredOutputError` when the model's reply is not the JSON asked for.
    """
    asked = [str(t["content"]) for t in previous_turn if t.get("role") == "user"]
    ruled = followup_by_rules(message, bool(previous_turn), asked[-1] if asked else "")
    if ruled is not None:
        return ruled
    vote = await FOLLOWUP_TIER2.adecide(models.settings, message)
    if vote is not None:
        return FollowupResult(vote.label == "True", "embedding", f"예문 확률 {vote.share:.2f}")
    messages = [
        SystemMessage(prompts.PREVIOUS_CONTEXT_SYSTEM),
        HumanMessage(
            prompts.PREVIOUS_CONTEXT_USER.format(
                previous_turn=format_previous_turn(previous_turn), question=message
            )
        ),
    ]
    verdict = await agenerate_structured(
        models("fast"), messages, PreviousTurnJudgement, max_tokens=prompts.JUDGEMENT_MAX_TOKENS
    )
    return FollowupResult(verdict.need_previous_context, "llm", verdict.reasoning)
