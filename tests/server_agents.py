"""Two small scripted agents for server and browser tests (never a real LLM).

Plugged in with `DURE_EXTRA_AGENTS="qa=server_agents:QA,slots=server_agents:SLOTS"` and
`tests/` on `PYTHONPATH` (so server subprocesses load them too). Each builds its own
`ScriptedChatModel` whose answer is computed from the prompt, so any process gets the same
deterministic answers.

- `qa` — a contract Q&A in miniature: thinking, planning, a tool with an audit step, an
  evaluation, then a streamed Markdown answer citing one article (from the thread's uploaded
  contract when there is one). A message containing "천천히" streams slowly (for kill tests);
  one containing "고장" fails after its first tokens; one containing "줄 서서" first waits for
  the model behind two others (the `queued` events the local model's line sends).
- `slots` — a task agent in miniature: required slots 장소 and 인원, a rule-based gate, a
  question through `interrupt()` while one is missing, then a streamed confirmation (that
  fails when the place is "고장").
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, TypedDict

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, SystemMessage
from langgraph.graph import END, START
from langgraph.graph.message import add_messages
from langgraph.types import interrupt

from dure.agent import AgentContext, AgentSpec, Answer, Branch, Edge, UserTurn
from dure.documents import load_document, parse_contract
from dure.events import (
    EvaluationResult,
    Generating,
    Planning,
    Queued,
    Slots,
    SourcesEvent,
    Thinking,
    ToolResultEvent,
    ToolSelected,
    emit,
)
from dure.sources import Source
from dure.tags import ANSWER_TAG
from dure.testing import Call, ScriptedChatModel

SLOW_WORD = "천천히"
SLOW_CHUNK_SECONDS = 0.25
#: A message (qa) or place (slots) with this word makes the turn fail half-way.
FAIL_WORD = "고장"
#: A message (qa) with these words waits in line for the model first.
QUEUE_WORDS = "줄 서서"
SAMPLE_ARTICLE = Source(
    doc="표준계약서",
    kind="standard",
    article_no="제5조",
    article_title="계약기간",
    text="제5조 (계약기간) 이 계약의 기간은 계약일로부터 1년으로 한다.",
)


class QAState(TypedDict, total=False):
    """Messages, the article found and the answer's sources."""

    messages: Annotated[list[AnyMessage], add_messages]
    article: dict[str, Any] | None
    sources: list[dict[str, Any]]


def _article(question: str, contract: Path | None) -> Source:
    if contract is None:
        return SAMPLE_ARTICLE
    parsed = parse_contract(load_document(contract).text, doc_id=contract.stem)
    found = parsed.find_by_number(question) or (parsed.articles[0] if parsed.articles else None)
    if found is None:
        return SAMPLE_ARTICLE
    return Source(
        doc=contract.name,
        kind="contract",
        article_no=found.no,
        article_title=found.title,
        text=found.text,
    )


def qa_answer(call: Call) -> str:
    """The scripted answer: Markdown citing the article named in the system message."""
    system = next((str(m.content) for m in call.messages if isinstance(m, SystemMessage)), "")
    question = str(call.messages[-1].content)
    return (
        f"**{system}**에 따르면 다음과 같습니다.\n\n"
        f"- 질문: {question}\n- 근거: `{system}`\n\n"
        "자세한 내용은 출처를 눌러 확인하세요."
    )


@dataclass(frozen=True)
class QADeps:
    """The scripted model and the thread's contract file (when one was uploaded)."""

    model: ScriptedChatModel
    contract: Path | None

    @classmethod
    def from_context(cls, ctx: AgentContext) -> QADeps:
        contract = ctx.options.get("contract")
        return cls(
            ScriptedChatModel(qa_answer, chunk_chars=3), Path(contract) if contract else None
        )


async def plan(state: QAState, *, deps: QADeps) -> QAState:
    question = str(state["messages"][-1].content)
    emit(Thinking(step="scope_validator", content="계약서 관련 질문인지 확인하는 중"))
    emit(Planning(content="필요한 조항을 찾을 계획을 세우는 중"))
    emit(ToolSelected(tools=[{"name": "get_article_by_index", "args": {"q": question}}]))
    source = await asyncio.to_thread(_article, question, deps.contract)
    step = {
        "step_id": 1,
        "tool": "get_article_by_index",
        "status": "success",
        "output": source.label(),
    }
    emit(ToolResultEvent(tool="get_article_by_index", ok=True, content=source.label(), step=step))
    emit(EvaluationResult(is_sufficient=True, content="정보가 충분합니다"))
    return {"article": source.model_dump()}


async def respond(state: QAState, *, deps: QADeps) -> QAState:
    emit(Generating(content="답변 작성 중"))
    source = Source(**(state.get("article") or {}))
    prompt = [SystemMessage(source.label()), state["messages"][-1]]
    slow = SLOW_WORD in str(state["messages"][-1].content)
    if QUEUE_WORDS in str(state["messages"][-1].content):
        for ahead in (2, 1):
            emit(Queued(ahead=ahead, content=f"대기 중: 앞에 {ahead}개"))
            await asyncio.sleep(1.0)
    text = ""
    async for chunk in deps.model.astream(prompt, config={"tags": [ANSWER_TAG]}):
        text += chunk.text
        if slow:
            await asyncio.sleep(SLOW_CHUNK_SECONDS)
        if FAIL_WORD in str(state["messages"][-1].content):
            raise RuntimeError("시험용 고장")
    emit(SourcesEvent(content=[source]))
    return {"messages": [AIMessage(text)], "sources": [source.model_dump()]}


def _messages_input(turn: UserTurn, deps: object) -> Any:
    """The message, after an explicit previous turn (as the assistant takes one)."""
    roles = {"user": HumanMessage, "assistant": AIMessage}
    earlier = [roles[m["role"]](m["content"]) for m in turn.previous_turn or []]
    return {"messages": [*earlier, HumanMessage(turn.message)]}


def _qa_output(values: Any) -> Answer:
    messages = values.get("messages") or []
    answer = str(messages[-1].content) if messages and isinstance(messages[-1], AIMessage) else ""
    return Answer(answer, [Source(**s) for s in values.get("sources") or []])


QA = AgentSpec(
    name="qa",
    title="시험용 계약서 Q&A",
    state=QAState,
    deps=QADeps.from_context,
    nodes={"plan": plan, "respond": respond},
    edges=[Edge(START, "plan"), Edge("plan", "respond"), Edge("respond", END)],
    make_input=_messages_input,
    output=_qa_output,
)

# ---------------------------------------------------------------- slots

REQUIRED = {"location": "장소", "party_size": "인원"}
LOCATION = re.compile(r"([가-힣A-Za-z0-9]+)에서")
PARTY = re.compile(r"(\d+)\s*명")


class SlotsState(TypedDict, total=False):
    """Messages and the slots collected so far."""

    messages: Annotated[list[AnyMessage], add_messages]
    slots: dict[str, str]


def parse_slots(text: str) -> dict[str, str]:
    """`{"location": "을지로", "party_size": "2"}` from "을지로에서 2명"."""
    found: dict[str, str] = {}
    if m := LOCATION.search(text):
        found["location"] = m.group(1)
    if m := PARTY.search(text):
        found["party_size"] = m.group(1)
    return found


def _missing(slots: dict[str, str]) -> list[str]:
    return [k for k in REQUIRED if not slots.get(k)]


def slots_answer(call: Call) -> str:
    """The scripted confirmation."""
    return f"{call.messages[-1].content} 예약을 마쳤습니다."


@dataclass(frozen=True)
class SlotsDeps:
    """The scripted model."""

    model: ScriptedChatModel

    @classmethod
    def from_context(cls, ctx: AgentContext) -> SlotsDeps:
        return cls(ScriptedChatModel(slots_answer))


async def gate(state: SlotsState, *, deps: SlotsDeps) -> SlotsState:
    emit(Thinking(step="qa_gate", content="필수 정보를 확인하는 중"))
    slots = {**(state.get("slots") or {}), **parse_slots(str(state["messages"][-1].content))}
    emit(Slots(content=slots, missing=_missing(slots)))
    return {"slots": slots}


async def ask(state: SlotsState, *, deps: SlotsDeps) -> SlotsState:
    labels = ", ".join(REQUIRED[k] for k in _missing(state.get("slots") or {}))
    reply = interrupt({"question": f"{labels}을(를) 알려 주세요."})
    return {"messages": [HumanMessage(str(reply))]}


async def book(state: SlotsState, *, deps: SlotsDeps) -> SlotsState:
    slots = state.get("slots") or {}
    if slots["location"] == FAIL_WORD:
        raise RuntimeError("시험용 고장")
    summary = f"{slots['location']}에서 {slots['party_size']}명"
    reply = await deps.model.ainvoke([HumanMessage(summary)], config={"tags": [ANSWER_TAG]})
    return {"messages": [reply]}


def after_gate(state: SlotsState, deps: SlotsDeps) -> str:
    return "ask" if _missing(state.get("slots") or {}) else "book"


SLOTS = AgentSpec(
    name="slots",
    title="시험용 예약 작업",
    state=SlotsState,
    deps=SlotsDeps.from_context,
    nodes={"gate": gate, "ask": ask, "book": book},
    edges=[
        Edge(START, "gate"),
        Branch("gate", after_gate, {"ask": "ask", "book": "book"}),
        Edge("ask", "gate"),
        Edge("book", END),
    ],
    make_input=_messages_input,
    output=_qa_output,
)

#: The value for `DURE_EXTRA_AGENTS`.
EXTRA_AGENTS = "qa=server_agents:QA,slots=server_agents:SLOTS"
