"""A user-fixable error inside a turn is reported as itself; any other as a generic message."""

from typing import TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph

from dure.errors import DureError
from dure.events import Done, ErrorEvent, stream_events
from dure.events.stream import FAILURE_MESSAGE


class _S(TypedDict, total=False):
    q: str


def _graph(error: Exception):
    def fail(state: _S) -> _S:
        raise error

    g = StateGraph(_S)
    g.add_node("fail", fail)
    g.add_edge(START, "fail")
    g.add_edge("fail", END)
    return g.compile(checkpointer=InMemorySaver())


async def _events(error: Exception):
    graph = _graph(error)
    return [
        e async for e in stream_events(graph, {"q": "x"}, thread_id="t", output=lambda s: ("", []))
    ]


async def test_a_dure_error_reaches_the_user_with_its_own_message() -> None:
    events = await _events(
        DureError("로컬 모델 파일이 없습니다 — `dure models pull`로 준비하세요.")
    )
    error, done = events[-2:]
    assert isinstance(error, ErrorEvent) and error.code == "user_error"
    assert isinstance(done, Done) and "dure models pull" in done.content


async def test_an_unexpected_error_becomes_the_generic_korean_message() -> None:
    events = await _events(ZeroDivisionError("secret internals"))
    error, done = events[-2:]
    assert isinstance(error, ErrorEvent) and error.code == "internal"
    assert done.content == FAILURE_MESSAGE and "secret" not in done.content
