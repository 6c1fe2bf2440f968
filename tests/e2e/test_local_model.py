"""End to end with the real local model: a small graph streamed through `stream_events`.

One structured-output call (classify a Korean sentence), one tool call (pick the right one of
three tools by its enum name) and one streamed answer. The model is the GGUF `make test`
assembles first; without it these tests fail (they are part of the suite, not optional).
"""

from __future__ import annotations

from typing import Any, Literal, TypedDict

import pytest
from langchain_core.messages import HumanMessage, SystemMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from pydantic import BaseModel, Field

from dure.events import Done, Thinking, Token, ToolSelected, emit, stream_events
from dure.llm import agenerate_structured, chat_model
from dure.llm.local import LocalChatModel
from dure.settings import Settings
from dure.tags import ANSWER_TAG

pytestmark = pytest.mark.local_model


@pytest.fixture
def model(settings: Settings) -> LocalChatModel:
    """The configured local chat model (the real GGUF)."""
    if not settings.model_path.is_file():
        pytest.fail(
            f"로컬 모델이 없습니다: {settings.model_path} — `make test`가 `dure models pull`로 "
            "먼저 조립합니다 (직접 실행할 때는 DURE_LOCAL__PATH=$(dure models path))."
        )
    m = chat_model("fast", settings)
    assert isinstance(m, LocalChatModel)
    return m


@tool
def get_weather(city: str) -> str:
    """도시의 현재 날씨를 알려 줍니다."""
    return f"{city}: 맑음, 25도"


@tool
def calculator(expression: str) -> str:
    """수식을 계산합니다."""
    return "0"


@tool
def search_contract(query: str) -> str:
    """계약서에서 관련 조항을 찾습니다."""
    return ""


TOOLS = {t.name: t for t in (get_weather, calculator, search_contract)}


class Sentiment(BaseModel):
    """문장의 감정 분류."""

    label: Literal["긍정", "부정"] = Field(description="문장의 감정")


class State(TypedDict, total=False):
    review: str
    question: str
    label: str
    tool: str
    tool_args: dict[str, Any]
    tool_result: str
    answer: str


def build_graph(model: LocalChatModel) -> Any:
    """classify → pick_tool → answer."""

    async def classify(state: State) -> State:
        emit(Thinking(step="classify", content="후기의 감정을 분류하고 있습니다."))
        result = await agenerate_structured(
            model,
            [
                SystemMessage("상품 후기의 감정을 긍정 또는 부정으로 분류하세요."),
                HumanMessage(state["review"]),
            ],
            Sentiment,
        )
        return {"label": result.label}

    async def pick_tool(state: State) -> State:
        reply = await model.bind_tools(list(TOOLS.values()), tool_choice="any").ainvoke(
            [HumanMessage(state["question"])]
        )
        call = reply.tool_calls[0]
        emit(
            ToolSelected(content="도구 선택", tools=[{"name": call["name"], "args": call["args"]}])
        )
        result = await TOOLS[call["name"]].ainvoke(call["args"])
        return {"tool": call["name"], "tool_args": call["args"], "tool_result": str(result)}

    async def answer(state: State) -> State:
        reply = await model.bind(max_tokens=48).ainvoke(
            [
                SystemMessage("도구 결과를 바탕으로 한 문장으로 답하세요."),
                HumanMessage(f"질문: {state['question']}\n도구 결과: {state['tool_result']}"),
            ],
            config={"tags": [ANSWER_TAG]},
        )
        return {"answer": reply.text}

    g = StateGraph(State)
    g.add_node("classify", classify)
    g.add_node("pick_tool", pick_tool)
    g.add_node("answer", answer)
    g.add_edge(START, "classify")
    g.add_edge("classify", "pick_tool")
    g.add_edge("pick_tool", "answer")
    g.add_edge("answer", END)
    return g.compile(checkpointer=InMemorySaver())


async def test_a_small_graph_runs_through_the_events_entry_point(model):
    graph = build_graph(model)
    events = [
        e
        async for e in stream_events(
            graph,
            {
                "review": "배송도 빠르고 품질이 정말 최고예요! 또 살게요.",
                "question": "서울 날씨 어때?",
            },
            thread_id="e2e",
            output=lambda values: (values["answer"], []),
        )
    ]
    done = events[-1]
    assert isinstance(done, Done), events
    values = (await graph.aget_state({"configurable": {"thread_id": "e2e"}})).values

    assert values["label"] == "긍정"  # the structured output: schema-valid and right
    assert values["tool"] == "get_weather" and "서울" in values["tool_args"]["city"]
    tokens = [e.content for e in events if isinstance(e, Token)]
    assert len(tokens) > 2 and "".join(tokens) == values["answer"] == done.content
    assert any(isinstance(e, ToolSelected) for e in events)
    assert done.usage.llm_calls == 3
    assert set(done.usage.by_node) == {"classify", "pick_tool", "answer"}
    assert all(n.prompt_tokens > 0 and n.completion_tokens > 0 for n in done.usage.by_node.values())


async def test_auto_tool_choice_streams_a_plain_answer(model):
    bound = model.bind_tools(list(TOOLS.values()), tool_choice="auto")
    chunks = [
        c
        async for c in bound.astream(
            [HumanMessage("안녕하세요! 짧게 인사해 주세요.")], max_tokens=32
        )
    ]
    texts = [c.text for c in chunks if c.text]
    message = sum(chunks[1:], chunks[0])
    assert not message.tool_calls
    assert len(texts) > 1 and not any("{" in t or '"answer"' in t for t in texts)
    assert "".join(texts) == message.text


async def test_prompts_are_kept_in_the_prompt_cache(model: LocalChatModel) -> None:
    """Each finished prompt's state is kept (`local.prompt_cache_mb`), so a later prompt that
    starts the same way — even after another prompt in between — skips evaluating that start."""
    engine = model.engine()
    cache = engine.llama.cache
    assert cache is not None and cache.capacity_bytes == model.prompt_cache_mb * 2**20 > 0
    for system in ("당신은 계약서 상담원입니다.", "당신은 검색 계획을 세우는 플래너입니다."):
        await model.ainvoke([SystemMessage(system), HumanMessage("안녕")], max_tokens=2)
    assert len(cache.cache_state) >= 2  # one state per prompt, keyed by its tokens
    # a kept state holds one row of logits (llama.cpp's copy of 512 rows was ≈ 311 MB a state,
    # never counted), and the capacity counts all a state holds
    assert all(state.scores.shape[0] == 1 for state in cache.cache_state.values())
    assert cache.cache_size <= cache.capacity_bytes
