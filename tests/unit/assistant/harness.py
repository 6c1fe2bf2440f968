"""Running assistant turns against a scripted model and reading what happened."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import BaseMessage, SystemMessage, ToolMessage
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.memory import InMemorySaver

from dure.agent import AgentContext
from dure.agents.assistant import AGENT
from dure.events import Done, Event, SourcesEvent, Thinking, ToolResultEvent, stream_turn
from dure.llm import ModelSet
from dure.settings import Settings
from dure.sources import Source
from dure.testing import Call, ScriptedChatModel

POLICIES = {
    "휴가 정책": "휴가 정책: 연차는 1년에 15일, 병가는 10일입니다. 연차는 반차로 나눠 쓸 수 있습니다.",
    "출장 규정": "출장 규정: 국내 출장 일비는 하루 5만원, 숙박비는 10만원까지 지원합니다.",
    "보안 지침": "보안 지침: 사내 문서는 외부 메일로 보낼 수 없습니다.",
}


class FakeRetriever:
    """A collection stand-in: documents ranked by how many query words they contain."""

    def __init__(self, docs: dict[str, str] | None = None, fail: Exception | None = None) -> None:
        self.docs = POLICIES if docs is None else docs
        self.fail = fail
        self.queries: list[str] = []

    def search(self, query: str, top_k: int) -> list[Source]:
        self.queries.append(query)
        if self.fail:
            raise self.fail
        words = set(re.findall(r"[가-힣A-Za-z0-9]{2,}", query))
        scored = [
            (sum(w[:2] in text for w in words), name, text) for name, text in self.docs.items()
        ]
        hits = [(s, n, t) for s, n, t in sorted(scored, reverse=True) if s > 0][:top_k]
        return [Source(doc=n, kind="document", text=t, score=float(s)) for s, n, t in hits]


@dataclass
class Turn:
    """One turn's events and the LLM calls it made."""

    events: list[Event]
    calls: list[Call]

    @property
    def done(self) -> Done:
        last = self.events[-1]
        assert isinstance(last, Done), last
        return last

    @property
    def answer(self) -> str:
        return str(self.done.content)

    @property
    def llm_calls(self) -> int:
        return self.done.usage.llm_calls

    def calls_by(self, node: str) -> list[Call]:
        return [c for c in self.calls if c.node == node]

    @property
    def steps(self) -> list[str]:
        """Nodes that reported work, in order, without repeats in a row."""
        out: list[str] = []
        for e in self.events:
            if isinstance(e, Thinking) and (not out or out[-1] != e.step):
                out.append(e.step)
        return out

    @property
    def route(self) -> str:
        """The router's decision as it reported it."""
        line = next(e for e in self.events if isinstance(e, Thinking) and e.step == "router")
        return "rag" if "판단: rag" in line.content else "agent"

    @property
    def routed_by_rule(self) -> bool:
        line = next(e for e in self.events if isinstance(e, Thinking) and e.step == "router")
        return line.decided_by == "rule"

    @property
    def tool_results(self) -> list[ToolResultEvent]:
        return [e for e in self.events if isinstance(e, ToolResultEvent)]

    @property
    def sources(self) -> list[Source]:
        return [s for e in self.events if isinstance(e, SourcesEvent) for s in e.content]


def system_prompt(call: Call) -> str:
    return next(str(m.content) for m in call.messages if isinstance(m, SystemMessage))


def tool_messages(call: Call) -> list[ToolMessage]:
    return [m for m in call.messages if isinstance(m, ToolMessage)]


def conversation(call: Call) -> list[BaseMessage]:
    """The messages after the system prompt."""
    return [m for m in call.messages if not isinstance(m, SystemMessage)]


@dataclass
class Assistant:
    """An assistant on one context, with its scripted model."""

    settings: Settings
    model: ScriptedChatModel
    checkpointer: BaseCheckpointSaver = field(default_factory=InMemorySaver)
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def ctx(self) -> AgentContext:
        return AgentContext(
            self.settings, ModelSet(self.settings, self.model), self.checkpointer, self.options
        )

    async def turn(self, message: str, thread: str = "t1") -> Turn:
        before = len(self.model.calls)
        events = [e async for e in stream_turn(AGENT, self.ctx, thread, message)]
        return Turn(events, self.model.calls[before:])

    async def state(self, thread: str = "t1") -> dict[str, Any]:
        graph = AGENT.build(self.ctx)
        snapshot = await graph.aget_state({"configurable": {"thread_id": thread}})
        return snapshot.values
