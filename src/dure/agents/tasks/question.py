"""The one question the Q&A step asks when the gate does not pass.

The LLM only phrases it (one call); the rules decide what it may say. A draft that asks for a
slot already filled, names no missing slot, or is not one question is replaced by a template
question, so a filled slot is never asked again whatever the model writes. A rejected value
is re-asked with the validator's reason, which is always said (it does not come from the LLM).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import date, datetime
from typing import Literal

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from dure.agents.tasks import prompts
from dure.agents.tasks.schema import IntentSchema, SlotSpec, display_date, is_filled
from dure.agents.tasks.state import ConversationState
from dure.errors import ErrorCode
from dure.events import ErrorEvent, emit
from dure.korean.particles import particle, with_ro
from dure.korean.slots.parser import PARTIAL_DATE
from dure.llm import StructuredOutputError, agenerate_structured
from dure.usage import BudgetExceeded

log = logging.getLogger(__name__)

Pattern = Literal["ASK", "INFORM", "CONFIRM"]


class QuestionDraft(BaseModel):
    """What the LLM returns."""

    pattern: Pattern = "ASK"
    acknowledgement: str = Field("", max_length=120)
    question: str = Field(max_length=200)


@dataclass
class Question:
    """The question put to the user, and where it came from."""

    text: str
    pattern: Pattern
    source: Literal["llm", "template"]
    problem: str | None = None


def _join(words: list[str]) -> str:
    """Labels joined with 과/와: `시간과 인원`, `장소와 시간`."""
    out = words[0]
    for w in words[1:]:
        out = particle(out, "과 ", "와 ") + w
    return out


def known_values(
    conv: ConversationState, schema: IntentSchema, now: datetime
) -> list[tuple[SlotSpec | None, str]]:
    """Filled, valid slots as (spec, Korean phrase); a date waiting for its time included."""
    invalid = conv.invalid_slots(now)
    known: list[tuple[SlotSpec | None, str]] = []
    for spec in schema.slots:
        value = conv.slots.get(spec.name)
        if is_filled(value) and spec.name not in invalid:
            known.append((spec, spec.display(value)))
        elif spec.type == "datetime" and conv.slots.get(PARTIAL_DATE):
            known.append((None, display_date(date.fromisoformat(conv.slots[PARTIAL_DATE]))))
    return known


def _ask_for(spec: SlotSpec, conv: ConversationState) -> str:
    if spec.type == "datetime" and conv.slots.get(PARTIAL_DATE):
        return f"{display_date(date.fromisoformat(conv.slots[PARTIAL_DATE]))} 몇 시로 할까요?"
    return spec.question


def template_question(
    conv: ConversationState, schema: IntentSchema, missing: list[str], now: datetime
) -> tuple[str, str]:
    """(acknowledgement, question) without an LLM: "을지로, 2명으로 확인했습니다." / "시간은 언제로 할까요?"."""
    known = [phrase for _, phrase in known_values(conv, schema, now)]
    ack = f"{with_ro(', '.join(known))} 확인했습니다." if known else ""
    specs = [s for s in (schema.spec(n) for n in missing) if s is not None]
    if len(specs) == 1:
        return ack, _ask_for(specs[0], conv)
    labels = _join([s.label for s in specs])
    return ack, f"{particle(labels, '을', '를')} 알려 주시겠어요?"


def check_draft(
    draft: QuestionDraft,
    conv: ConversationState,
    schema: IntentSchema,
    missing: list[str],
    now: datetime,
) -> str | None:
    """None when the draft is one question about missing slots only, else what is wrong."""
    question = draft.question.strip()
    if not question or len(question) > 200:
        return "빈 질문이거나 너무 깁니다"
    if question.count("?") > 1 or "?" in draft.acknowledgement:
        return "질문이 하나가 아닙니다"
    missing_specs = [s for s in (schema.spec(n) for n in missing) if s is not None]
    missing_terms = {t for s in missing_specs for t in (*s.ask_terms, s.label)}
    if not any(term in question for term in missing_terms):
        return "빠진 정보를 묻지 않습니다"
    for spec, phrase in known_values(conv, schema, now):
        if spec is None:  # a known date is part of the date-time being asked for
            continue
        terms = (*spec.ask_terms, phrase)
        asked = [t for t in terms if t in question and not any(t in m for m in missing_terms)]
        if asked:
            return f"이미 확인된 정보를 다시 묻습니다 ({asked[0]})"
    return None


def _compose(reasons: list[str], ack: str, question: str) -> str:
    return " ".join(part.strip() for part in (*reasons, ack, question) if part.strip())


async def phrase_question(
    conv: ConversationState,
    schema: IntentSchema,
    missing: list[str],
    model: BaseChatModel,
    now: datetime,
    last_message: str = "",
) -> Question:
    """One LLM call to phrase the question; the template when the draft breaks the rules."""
    invalid = {slot: reason for slot, reason in conv.invalid_slots(now).items() if slot in missing}
    reasons = list(invalid.values())
    known = ", ".join(
        f"{spec.label if spec else '날짜'}={phrase}"
        for spec, phrase in known_values(conv, schema, now)
    )
    wanted = ", ".join(
        f"{s.label} ({_ask_for(s, conv)})" for s in (schema.spec(n) for n in missing) if s
    )
    bad = "".join(
        f"다시 받아야 하는 값: {spec.label} — {invalid[spec.name]}\n"
        for spec in schema.slots
        if spec.name in invalid
    )
    messages = [
        SystemMessage(prompts.QUESTION_SYSTEM),
        HumanMessage(
            prompts.QUESTION_USER.format(
                title=schema.title,
                known=known or "없음",
                missing=wanted,
                invalid=bad,
                last=last_message or "-",
            )
        ),
    ]
    try:
        draft = await agenerate_structured(model, messages, QuestionDraft)
        problem = check_draft(draft, conv, schema, missing, now)
    except StructuredOutputError as e:
        draft, problem = None, f"형식 오류: {e.reason}"
    except BudgetExceeded:
        raise
    except Exception as e:  # the model is down: the template still asks the right thing
        log.warning("question model failed (%s); using the template", e)
        emit(ErrorEvent(code=ErrorCode.LLM_UNAVAILABLE, content=prompts.MODEL_UNAVAILABLE))
        draft, problem = None, f"모델 오류: {type(e).__name__}"
    template_ack, template = template_question(conv, schema, missing, now)
    if draft is not None and problem is None:
        # Known values are always acknowledged: the model's words if they name one, else ours.
        names_known = any(p in draft.acknowledgement for _, p in known_values(conv, schema, now))
        ack = draft.acknowledgement if names_known else template_ack
        return Question(_compose(reasons, ack, draft.question), draft.pattern, "llm")
    log.info("question draft rejected (%s); using the template", problem)
    return Question(_compose(reasons, template_ack, template), "ASK", "template", problem)
