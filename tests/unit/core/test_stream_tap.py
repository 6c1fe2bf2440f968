"""A `Tap` receives the graph's own stream (what LangGraph's protocol serves) beside the typed
events, in order, from a real graph with a scripted model; a structured decision's JSON is not
in the messages stream."""

from typing import Annotated, Any, TypedDict

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from pydantic import BaseModel

from dure.events import Done, Tap, Thinking, Token, emit, stream_events
from dure.llm.structured import agenerate_structured
from dure.tags import ANSWER_TAG
from dure.testing import ScriptedChatModel


class _S(TypedDict, total=False):
    messages: Annotated[list[AnyMessage], add_messages]


class _Verdict(BaseModel):
    ok: bool


def _graph(model: ScriptedChatModel) -> Any:
    async def answer(state: _S) -> _S:
        emit(Thinking(step="answer", content="답하는 중"))
        await agenerate_structured(model, state["messages"], _Verdict)  # a decision's JSON
        reply = await model.ainvoke(state["messages"], config={"tags": [ANSWER_TAG]})
        return {"messages": [reply]}

    g = StateGraph(_S)
    g.add_node("answer", answer)
    g.add_edge(START, "answer")
    g.add_edge("answer", END)
    return g.compile(checkpointer=InMemorySaver())


async def _run(modes: set[str]) -> tuple[list[tuple[str, Any]], list[Any]]:
    seen: list[tuple[str, Any]] = []
    graph = _graph(ScriptedChatModel([{"ok": True}, "안녕하세요, 반갑습니다."]))
    events = [
        e
        async for e in stream_events(
            graph,
            {"messages": [HumanMessage("안녕")]},
            thread_id="t",
            output=lambda s: (s["messages"][-1].text, []),
            tap=Tap(frozenset(modes), lambda mode, data: seen.append((mode, data))),
        )
    ]
    return seen, events


async def test_the_tap_gets_values_messages_and_custom_items() -> None:
    seen, events = await _run({"values", "messages", "custom"})
    assert {mode for mode, _ in seen} == {"values", "messages", "custom"}
    chunks = [data for mode, data in seen if mode == "messages"]
    assert len(chunks) > 1 and all(meta["langgraph_node"] == "answer" for _, meta in chunks)
    assert "".join(m.text for m, _ in chunks) == "안녕하세요, 반갑습니다."  # no decision JSON
    assert isinstance(seen[-1][1]["messages"][-1], AIMessage)  # the last values
    # the typed events are made as before
    assert "".join(e.content for e in events if isinstance(e, Token)) == "안녕하세요, 반갑습니다."
    assert any(isinstance(e, Thinking) for e in events) and isinstance(events[-1], Done)


async def test_events_mode_sends_callback_events_and_the_modes_asked_for() -> None:
    seen, events = await _run({"events", "updates"})
    kinds = {data["event"] for mode, data in seen if mode == "events"}
    assert {"on_chain_start", "on_chat_model_stream", "on_chain_end"} <= kinds
    assert [data for mode, data in seen if mode == "updates"][0]["answer"]["messages"]
    assert events[-1].content == "안녕하세요, 반갑습니다."
