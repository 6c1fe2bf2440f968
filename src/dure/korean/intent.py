"""Intent (new_question / follow_up / clarification / chitchat) and whether tools are needed.

The rule settles obvious chitchat; the example bank (e5 + logistic regression) decides intent
and needs_tool for the rest, and a follow-up or clarification is then rewritten into a
standalone query by one bounded call; a message that closes the previous turn and asks anew
("고마워! 근데 내일 부산 날씨는?", "딴 얘긴데, …": `dure.korean.leaning.opens_new_question`) is a
new question whatever the bank says. Only when the bank abstains does one bounded `fast` model
call decide everything.

The rule only fires when the whole message is a greeting, thanks, laughter or a reaction
("고마워!", "ㅋㅋㅋ", "안녕하세요~", "오 대박 감사합니당"), so nothing with a request in it skips
the classifier. A sum done in the head ("7 더하기 8은?", `mental_sum`) needs no tool; a
correction ("아니 내 말은 부산") needs the tools its request needed. Short
agreements ("네", "좋아") are left to the classifier: after an offer ("번역해 드릴까요?")
they are a follow-up request, not chitchat.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from dure.korean import prompts
from dure.korean.bank import Tier2
from dure.korean.decision import DecidedBy, reported
from dure.korean.leaning import opens_new_question
from dure.korean.rewrite import checked, last_user, standalone
from dure.korean.route import asks_documents, tool_hint
from dure.korean.smalltalk import is_greeting
from dure.llm import ModelSet, StructuredOutputError, agenerate_structured
from dure.settings import Settings

Intent = Literal["new_question", "follow_up", "clarification", "chitchat"]
INTENTS: dict[str, Intent] = {
    k: k for k in ("new_question", "follow_up", "clarification", "chitchat")
}

#: Chosen by measurement: logistic regression on the message's e5 vector and its Kiwi
#: morphemes at weight 0.3 (dev / blind intent 0.93 / 0.98, needs_tool 0.94 / 0.96; e5 alone
#: 0.87 / 0.93 and 0.92 / 0.94; weight 0.5 0.88 on dev; 5 or 9 nearest neighbours 0.80–0.83 on
#: blind; the history hint concatenated in measured far worse); intent and needs_tool are two
#: models over one bank.
INTENT_TIER2 = Tier2("intent", "intent", l2=1e-4, morphemes=0.3)
TOOL_TIER2 = Tier2("intent", "needs_tool", l2=1e-4, morphemes=0.3)
#: A follow-up that asks for no tool itself needs one when its earlier message did; that vote is
#: read from the earlier message's morphemes alone, and only when it is less sure than
#: `EARLIER_SURE` from its e5 vector too. A second embedding (≈ 20 ms) was one of intent's
#: latency tails: it now happens for 5 / 3 / 3 messages of the dev / blind / blind2 sets instead
#: of 12 / 11 / 8, with needs_tool dev 0.942 → 0.953 and blind, blind2 unchanged (0.947, 0.94).
#: The threshold was chosen on dev (0.85: 0.93; 0.95: 0.942); morphemes alone always: 0.919.
#: The other tail is a long message: e5 costs ≈ 1.5 ms a token, and capping its tokens at 24 or
#: 32 lost 0.01–0.02 on blind sets.
EARLIER_TOOL_TIER2 = Tier2("intent", "needs_tool", l2=1e-4, morphemes=1.0, dense=False)
EARLIER_SURE = 0.9

#: Correcting what was meant ("아니 내 말은 부산", "그게 아니라 …"): the request again, changed,
#: so it needs what the earlier request needed (new data when that one did).
_CORRECTS = r"^\s*(?:아니|아냐|아뇨)[,\s]|(?:내|제)\s*말은|그게\s*아니라|그런\s*뜻이\s*아니"
_CORRECTION = re.compile(_CORRECTS)
#: Asking to explain, exemplify or restate the previous answer, or correcting what was meant:
#: a clarification whenever there is a previous answer.
_CLARIFY = re.compile(
    # explain or exemplify
    r"무슨\s*(?:뜻|말|의미|소리)|뭔\s*(?:뜻|말|소리)|뭔소리|이해(?:가|를)?\s*안|"
    r"예(?:를|시)\s*(?:들|좀)|예시|쉽게\s*(?:말|설명|풀어)|다시\s*(?:설명|말해)|"
    # justify ("왜 그렇게 계산한 거야?")
    r"(?:^|\s)왜\s[^?]*(?:거야|건데|거예요|건가요|는\s*거|했어|했나요)|"
    # restate in another way
    r"(?:더\s*)?짧게\s*(?:다듬|줄여|정리|써)|존댓말로|반말로|캐주얼하게|딱딱하(?:지\s*않게|게)|"
    # correct what was meant ("아니 대전 말고 대구")
    rf"{_CORRECTS}|(?:물어본|말한|얘기한)\s*(?:거야|건데|거예요)"
)


class IntentDecision(BaseModel):
    """What the intent classifier answers (field order is the order the model should think in)."""

    intent: Intent = Field(description="new_question | follow_up | clarification | chitchat")
    needs_tool: bool = Field(description="외부 도구(검색, 날씨, 계산 등)가 필요하면 true")
    constraints: str = Field(
        "",
        max_length=120,
        description="이전 대화에서 이어지는 제약조건 (장소, 조건, 대상 등). 없으면 빈 문자열",
    )
    rewritten_query: str = Field(
        max_length=300, description="대화 맥락과 제약조건을 모두 담아 재작성한 요청"
    )


@dataclass(frozen=True)
class IntentResult:
    """The intent, whether tools are needed, the standalone request, and how it was decided."""

    intent: Intent
    needs_tool: bool
    rewritten_query: str
    decided_by: DecidedBy


#: Earlier messages shown to the model, and the characters of each.
PROMPT_HISTORY = 10
HISTORY_CHARS = 500
MESSAGE_CHARS = 3000


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else f"{text[:limit]} …(이하 {len(text) - limit:,}자 생략)"


def history_text(history: Sequence[Mapping[str, object]]) -> str:
    """`role: content` lines of the recent history (`(없음)` when empty)."""
    recent = history[-PROMPT_HISTORY:]
    lines = [f"{m['role']}: {_clip(str(m['content']), HISTORY_CHARS)}" for m in recent]
    return "\n".join(lines) or prompts.NO_HISTORY


@reported("intent")
async def decide_intent(
    message: str,
    history: Sequence[Mapping[str, object]],
    models: ModelSet,
    current_datetime: str,
) -> IntentResult:
    """Chitchat by rule; otherwise one bounded `fast` model call.

    Raises `StructuredOutputError` when the model's reply is not the JSON asked for.
    """
    if is_greeting(message):
        return IntentResult("chitchat", False, message.strip(), "rule")
    intent_vote = await INTENT_TIER2.adecide(models.settings, message)
    tool_vote = await TOOL_TIER2.adecide(models.settings, message)
    if intent_vote is not None and tool_vote is not None and intent_vote.label in INTENTS:
        intent = INTENTS[intent_vote.label]
        if not history and intent in ("follow_up", "clarification"):
            intent = "new_question"  # nothing earlier to follow up on or clarify
        elif history and _CLARIFY.search(message):
            intent = "clarification"
        elif intent in ("follow_up", "clarification") and opens_new_question(message):
            intent = "new_question"  # "고마워! 근데 내일 부산 날씨는?", "딴 얘긴데, …"
        head = mental_sum(message, last_user(history) or "")
        if intent == "follow_up" and head and _OPERATION.search(message):
            intent = "new_question"  # "7 더하기 8은?" asks all it needs, whatever came before
        needs_tool = intent != "chitchat" and tool_vote.label == "True" and not head
        intent, needs_tool = _with_plain_tool(message, intent, needs_tool)
        corrects = intent == "clarification" and bool(_CORRECTION.search(message))
        if (
            (intent == "follow_up" or corrects)
            and not needs_tool
            and not head
            and (earlier := last_user(history))
        ):
            # "그럼 부산은?" after a weather question, or "아니 내 말은 부산": more of the same
            # (or the same, corrected) needs the same tools
            # (the bank asked only when no tool was plainly asked for earlier).
            needs_tool = _asks_for_tool(earlier)
            if not needs_tool:
                needs_tool = await _earlier_needed_tool(models.settings, earlier)
        rewritten = message.strip()
        if intent in ("follow_up", "clarification"):
            rewritten = await _rewrite(message, history, models, current_datetime)
        return IntentResult(intent, needs_tool, rewritten, "embedding")
    messages = [
        SystemMessage(prompts.INTENT_PROMPT.format(current_datetime=current_datetime)),
        HumanMessage(
            prompts.INTENT_INPUT.format(
                history=history_text(history), input=_clip(message, MESSAGE_CHARS)
            )
        ),
    ]
    d = await agenerate_structured(
        models("fast"), messages, IntentDecision, max_tokens=prompts.INTENT_MAX_TOKENS
    )
    intent, needs_tool = _with_plain_tool(message, d.intent, d.needs_tool)
    follows = intent in ("follow_up", "clarification")
    return IntentResult(
        intent, needs_tool, checked(d.rewritten_query, message, history, follows), "llm"
    )


async def _earlier_needed_tool(settings: Settings, earlier: str) -> bool:
    vote = await EARLIER_TOOL_TIER2.adecide(settings, earlier)
    if vote is None or vote.share < EARLIER_SURE:
        vote = await TOOL_TIER2.adecide(settings, earlier)
    return vote is not None and vote.label == "True"


def _asks_for_tool(message: str) -> bool:
    """A tool plainly asked for (sum, clock, weather, web, Wikipedia), or the user's documents;
    a sum done in the head is none (`mental_sum`)."""
    if mental_sum(message):
        return False
    return tool_hint(message) is not None or asks_documents(message)


#: One operation on two numbers ("2 더하기 3", "12 곱하기 5", "20/4"), or half of a number.
_OPERATION = re.compile(
    r"(?<![\d.,])(?P<a>\d{1,4})\s*(?P<op>[-+*/×÷]|더하기|빼기|곱하기|나누기)\s*(?P<b>\d{1,4})"
    r"(?![\d.,])"
)
_HALF = re.compile(r"(?<![\d.,])(?P<a>\d{1,4})\s*의\s*절반")
#: Words that carry arithmetic on a number said before ("거기에 10 더하면", "그럼 곱하기 3은").
_ON_BEFORE = re.compile(r"더하|빼|곱하|나누|절반|[-+*/×÷]")
_DIGITS = re.compile(r"\d+(?:[.,]\d+)*")
_CALCULATE = re.compile(r"계산|(?<![a-z])(?:calculate|compute)(?![a-z])", re.IGNORECASE)


def mental_sum(message: str, earlier: str = "") -> bool:
    """Whether `message` asks a sum people do in the head, which needs no calculator by the
    labelling rules ("non-trivial arithmetic" needs one; of the bank's, "2 더하기 3은?" does not):
    one operation on numbers up to 100 (a product or a dividend up to 100), or half of a number
    up to 1,000; after such a sum (`earlier`), one more step on a number up to 100 ("거기에 10
    더하면"). Not when the calculator is asked for ("12+30 계산해 줘")."""
    if _CALCULATE.search(message):  # "12+30 계산해 줘": the calculator was asked for by name
        return False
    numbers = _DIGITS.findall(message)
    ops = list(_OPERATION.finditer(message))
    if len(ops) == 1 and len(numbers) == 2:
        a, b, op = int(ops[0]["a"]), int(ops[0]["b"]), ops[0]["op"]
        if op in ("*", "×", "곱하기"):
            return a * b <= 100
        if op in ("/", "÷", "나누기"):
            return a <= 100 and 0 < b and a % b == 0
        return a <= 100 and b <= 100
    if not ops and len(numbers) == 1 and (half := _HALF.search(message)):
        return int(half["a"]) <= 1000
    return (
        bool(earlier)
        and len(numbers) == 1
        and not ops
        and numbers[0].isdigit()
        and int(numbers[0]) <= 100
        and bool(_ON_BEFORE.search(message))
        and mental_sum(earlier)
    )


def _with_plain_tool(message: str, intent: Intent, needs_tool: bool) -> tuple[Intent, bool]:
    """A message that plainly asks for a tool needs one whatever a classifier said: answering
    from memory would be a guess."""
    if not _asks_for_tool(message):
        return intent, needs_tool
    return ("new_question" if intent == "chitchat" else intent), True


class Rewrite(BaseModel):
    """A follow-up rewritten to stand alone (the one bounded call an embedding decision makes)."""

    rewritten_query: str = Field(max_length=300)


async def _rewrite(
    message: str, history: Sequence[Mapping[str, object]], models: ModelSet, current_datetime: str
) -> str:
    """The message rewritten with the earlier turns' constraints, if the rewrite is faithful;
    else, or if the model's reply cannot be read, the message with the earlier request beside it
    (`dure.korean.rewrite`; the intent is decided already)."""
    messages = [
        SystemMessage(prompts.REWRITE_PROMPT.format(current_datetime=current_datetime)),
        HumanMessage(
            prompts.INTENT_INPUT.format(
                history=history_text(history), input=_clip(message, MESSAGE_CHARS)
            )
        ),
    ]
    try:
        r = await agenerate_structured(
            models("fast"), messages, Rewrite, max_tokens=prompts.REWRITE_MAX_TOKENS
        )
    except StructuredOutputError:
        return standalone(message, history)
    return checked(r.rewritten_query, message, history)
