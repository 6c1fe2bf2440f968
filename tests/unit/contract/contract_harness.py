"""Test helpers for the contract agent: an in-memory library over the real parser, a runner."""

from __future__ import annotations

import asyncio
import hashlib
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dure.agent import AgentContext
from dure.agents.contract import AGENT
from dure.documents.contract import Contract, parse_contract
from dure.events import Event, stream_turn
from dure.settings import Settings
from dure.testing import Call, ScriptedChatModel

CONTRACT = """# 소프트웨어 개발 용역 계약서

주식회사 가나(이하 "갑")와 주식회사 다라(이하 "을")는 다음과 같이 계약을 체결한다.

제1조 (목적)
이 계약은 갑이 을에게 위탁하는 소프트웨어 개발 용역의 수행에 필요한 사항을 정함을 목적으로 한다.

제2조 (계약기간)
계약기간은 2024년 1월 1일부터 2024년 12월 31일까지로 한다.

제3조 (대금 지급)
① 갑은 을에게 용역 대금으로 금 5천만 원을 지급한다.
② 대금은 제6조에 따른 검수 완료 후 30일 이내에 지급한다.

제4조 (비밀유지)
을은 계약 기간 중 알게 된 갑의 영업비밀을 제3자에게 누설하여서는 아니 된다.

제5조 (지체상금)
① 을이 납기를 지키지 못한 경우 지체일수 1일당 계약금액의 1천분의 1을 지체상금으로 갑에게 지급한다.
② 지체상금은 제3조의 대금에서 공제할 수 있다.

제6조 (검수)
갑은 납품일로부터 14일 이내에 검수를 완료한다.

제7조 (계약의 해지)
① 갑 또는 을은 상대방이 이 계약을 위반한 경우 14일의 기간을 정하여 시정을 요구하고, 그 기간 내에 시정하지 아니하면 계약을 해지할 수 있다.
② 제1항에 따른 해지는 제8조에 따른 손해배상 청구에 영향을 미치지 아니한다.

제8조 (손해배상)
당사자는 이 계약을 위반하여 상대방에게 손해를 입힌 경우 그 손해를 배상하여야 한다.
"""

STANDARD = """# 소프트웨어 개발 표준계약서

제1조 (목적)
이 계약은 소프트웨어 개발 용역의 공정한 거래 조건을 정함을 목적으로 한다.

제4조 (대금의 지급)
발주자는 검수 완료 후 14일 이내에 대금을 지급한다.

제9조 (계약의 해지)
당사자는 상대방의 중대한 위반이 있는 경우 30일의 기간을 정하여 시정을 요구하고 계약을 해지할 수 있다.
"""


@dataclass
class FakeHit:
    """A search hit with the fields the agent reads."""

    doc: str
    doc_id: str
    kind: str
    article_no: str | None
    article_title: str | None
    score: float
    text: str


class FakeLibrary:
    """In-memory documents parsed by the real parser; keyword-overlap search.

    `delay` makes every search take that long (to observe concurrency), `fail` makes search
    raise; `in_flight`/`max_in_flight` record how many searches ran at once.
    """

    def __init__(self, delay: float = 0.0, fail: Exception | None = None) -> None:
        self.docs: dict[str, tuple[Contract, str]] = {}
        self.delay = delay
        self.fail = fail
        self.searches: list[dict[str, Any]] = []
        self.added: list[str] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()

    def add_document(self, path_or_text: Path | str, kind: str = "document") -> str:
        text = path_or_text.read_text() if isinstance(path_or_text, Path) else path_or_text
        doc_id = hashlib.sha256(text.encode()).hexdigest()[:12]
        self.added.append(doc_id)
        if doc_id not in self.docs:
            self.docs[doc_id] = (parse_contract(text, doc_id), kind)
        return doc_id

    def get_contract(self, doc_id: str) -> Contract:
        return self.docs[doc_id][0]

    def search(
        self, query: str, top_k: int = 5, kind: str | None = None, doc_id: str | None = None
    ) -> list[FakeHit]:
        with self._lock:
            self.searches.append({"query": query, "kind": kind, "doc_id": doc_id})
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if self.delay:
                import time

                time.sleep(self.delay)
            if self.fail is not None:
                raise self.fail
            words = [w for w in query.split() if len(w) >= 2]
            hits = []
            for did, (contract, k) in self.docs.items():
                if (kind and k != kind) or (doc_id and did != doc_id):
                    continue
                for a in contract.articles:
                    score = sum(w[:2] in a.text for w in words)
                    if score:
                        hits.append(
                            FakeHit(contract.title or did, did, k, a.no, a.title, score, a.text)
                        )
            hits.sort(key=lambda h: -h.score)
            return hits[:top_k]
        finally:
            with self._lock:
                self.in_flight -= 1


def by_node(replies: dict[str, list[Any]]) -> Callable[[Call], Any]:
    """A scripted responder that answers each LangGraph node from its own queue."""

    def respond(call: Call) -> Any:
        queue = replies.get(call.node or "")
        if not queue:
            raise AssertionError(f"unscripted call from node {call.node!r}: {call.prompt[-200:]}")
        return queue.pop(0)

    return respond


@dataclass
class Harness:
    """One agent context (library, scripted model, in-memory threads) and a turn runner."""

    settings: Settings
    library: FakeLibrary
    model: ScriptedChatModel
    ctx: AgentContext
    contract_id: str
    standard_id: str

    def turn(self, message: str, thread: str = "t1") -> list[Event]:
        async def go() -> list[Event]:
            return [e async for e in stream_turn(AGENT, self.ctx, thread, message)]

        return asyncio.run(go())

    def calls_by(self, node: str) -> list[Call]:
        return [c for c in self.model.calls if c.node == node]


def types(events: list[Event]) -> list[str]:
    """Event types without `thinking` lines and with consecutive tokens collapsed."""
    out: list[str] = []
    for e in events:
        if e.type == "thinking" or (e.type == "token" and out and out[-1] == "token"):
            continue
        out.append(e.type)
    return out


def said(events: list[Event]) -> str:
    """The answer as the model wrote it, without the article quote respond may append."""
    return events[-1].content.split("\n\n조항 원문 — ")[0]
