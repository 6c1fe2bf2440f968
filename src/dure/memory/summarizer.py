"""Summarising old messages with a chat model, keeping the facts later turns will ask about.

Rolling summaries are known to lose early facts: when the oldest summary slides out of the
window its facts are gone, and asking the model to restate them in every new summary is not
enough (measured: the 1.5B local model summarised only the new messages, and 12 of 20 planted
facts were lost after 30 turns). So the work is split. The model sees the summaries still in
the window (for context) and writes the facts of the messages it replaces — names, dates,
amounts and decisions verbatim — as bullets under "핵심 사실:". The code carries the bullets
of a summary about to slide out into the new summary (`carry_facts`), so a fact leaves the
memory only when `MAX_CARRIED_FACTS` newer ones push it out.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from dure.memory.window import format_summary_for_prompt

#: Longest text of one message shown to the summariser.
MESSAGE_CHARS = 2_000

#: Most fact bullets one summary carries; beyond it the oldest carried facts are dropped.
MAX_CARRIED_FACTS = 40
FACTS_HEADER = "핵심 사실:"
FLOW_HEADER = "대화 흐름:"
_BULLETS = ("- ", "• ", "* ", "· ")

SUMMARY_SYSTEM_PROMPT = f"""당신은 대화 기록을 요약하는 도우미입니다. 요약은 이후 대화에서 이전 내용을 기억하는 데 쓰입니다.

규칙:
- [요약할 대화]에 나온 사람 이름, 날짜와 시간, 금액과 수량, 장소, 결정·약속·선호 사항을 원문 그대로(숫자와 단위 포함) 빠짐없이 한 줄에 하나씩 적으세요.
- [이전 요약]은 참고용입니다. 그 사실들은 따로 보관되므로 다시 적지 말고, 바뀐 사실이 있으면 바뀐 값을 적으세요.
- 대화에 없는 내용은 지어내지 마세요. 인사말이나 잡담은 빼세요.

형식:
{FACTS_HEADER}
- (사실 하나씩)
{FLOW_HEADER} (한두 문장)"""


def _key(line: str) -> str:
    return "".join(line.split()).lower()


def fact_lines(summary: str) -> list[str]:
    """The fact bullets of a summary; a summary without bullets counts as one fact."""
    lines = [line.strip() for line in summary.splitlines() if line.strip()]
    bullets = [f"- {line[2:].strip()}" for line in lines if line.startswith(_BULLETS)]
    if bullets:
        return bullets
    text = " ".join(
        line for line in lines if not line.startswith((FACTS_HEADER, FLOW_HEADER))
    ).strip()
    return [f"- {text}"] if text else []


def carry_facts(
    leaving: Sequence[str], new_summary: str, max_facts: int = MAX_CARRIED_FACTS
) -> str:
    """`new_summary` with the fact bullets of the summaries `leaving` the window put first.

    Facts already in the new summary (same text, spacing aside) are not repeated; when there
    are more than `max_facts`, the oldest carried ones are dropped.
    """
    own = fact_lines(new_summary) if FACTS_HEADER in new_summary else []
    seen = {_key(f) for f in own}
    carried: list[str] = []
    for summary in leaving:
        for fact in fact_lines(summary):
            if _key(fact) not in seen:
                seen.add(_key(fact))
                carried.append(fact)
    carried = carried[max(0, len(carried) + len(own) - max_facts) :]
    if not carried:
        return new_summary
    block = "\n".join(carried)
    if FACTS_HEADER not in new_summary:
        return f"{FACTS_HEADER}\n{block}\n{new_summary}"
    head, _, rest = new_summary.partition(FACTS_HEADER)
    rest = rest.lstrip("\n")
    return f"{head}{FACTS_HEADER}\n{block}\n{rest}"


def render_transcript(messages: Sequence[BaseMessage]) -> str:
    """Messages as a plain Korean transcript (tool calls and results included)."""
    lines: list[str] = []
    for m in messages:
        text = m.text if isinstance(m.content, list) else str(m.content)
        text = text.strip()[:MESSAGE_CHARS]
        if isinstance(m, HumanMessage):
            lines.append(f"사용자: {text}")
        elif isinstance(m, AIMessage):
            for call in m.tool_calls:
                args = json.dumps(call["args"], ensure_ascii=False)
                lines.append(f"AI(도구 호출): {call['name']}({args})")
            if text:
                lines.append(f"AI: {text}")
        elif isinstance(m, ToolMessage):
            lines.append(f"도구 결과({m.name or '도구'}): {text}")
        elif text:
            lines.append(f"{m.type}: {text}")
    return "\n".join(lines)


def summary_request(
    messages: Sequence[BaseMessage], previous_summary: str | None
) -> list[BaseMessage]:
    """The summariser's prompt for `messages`, given the summaries already kept."""
    previous = format_summary_for_prompt(previous_summary) or "(없음)"
    return [
        SystemMessage(SUMMARY_SYSTEM_PROMPT),
        HumanMessage(
            f"[이전 요약]\n{previous}\n\n[요약할 대화]\n{render_transcript(messages)}\n\n"
            "위 형식대로 새 요약을 쓰세요."
        ),
    ]


async def summarize_messages(
    model: BaseChatModel, messages: Sequence[BaseMessage], previous_summary: str | None = None
) -> str:
    """One LLM call: the facts and gist of `messages` (earlier summaries shown for context)."""
    reply = await model.ainvoke(summary_request(messages, previous_summary))
    return reply.text.strip()
