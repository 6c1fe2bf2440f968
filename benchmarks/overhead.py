"""What the events entry point costs per turn, and how fast the local model is.

Overhead: one small graph (think → pick a tool → streamed answer, three scripted LLM calls
per turn) is run for many turns through `dure.events.stream_events` and, as the baseline in
the same run, through bare LangGraph `graph.astream(..., stream_mode=[...])` with the same
stream modes. Turns alternate between the two so drift hits both alike. Reported: p50 and
p90 milliseconds per turn and the ratio of the p50s (target ≤ 1.5).

Local model: load time, prompt tokens/s (a ~300-token prompt, one generated token) and
generated tokens/s (a long count, between the first and the last streamed token), measured
once with the configured GGUF. `DURE_BENCH_OVERHEAD_TURNS` sets the number of turns.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import time
import uuid
from typing import Any, TypedDict

from langchain_core.messages import HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from pydantic import BaseModel

from dure.events import Thinking, emit, stream_events
from dure.llm import agenerate_structured
from dure.tags import ANSWER_TAG
from dure.testing import Call, ScriptedChatModel, tool_call

TARGET_RATIO = 1.5
TURNS = int(os.environ.get("DURE_BENCH_OVERHEAD_TURNS", "200"))
WARMUP = 10
STREAM_MODES = ["custom", "messages", "updates"]
ANSWER = "계약 해지는 30일 전에 서면으로 통보해야 합니다 (제12조)."


class Route(BaseModel):
    """What the first node decides."""

    route: str


class State(TypedDict, total=False):
    question: str
    route: str
    tool: str
    answer: str


def _reply(call: Call) -> Any:
    if call.response_format:
        return {"route": "tool"}
    if call.tools:
        return tool_call("search_contract", query="해지")
    return ANSWER


def build_graph(model: ScriptedChatModel) -> Any:
    """think → act → answer, as an agent turn would run them."""

    async def think(state: State) -> State:
        emit(Thinking(step="think", content="질문을 살펴보고 있습니다."))
        route = await agenerate_structured(model, [HumanMessage(state["question"])], Route)
        return {"route": route.route}

    async def act(state: State) -> State:
        def search_contract(query: str) -> str:
            """계약서에서 조항을 찾습니다."""
            return query

        reply = await model.bind_tools([search_contract], tool_choice="any").ainvoke(
            [HumanMessage(state["question"])]
        )
        return {"tool": reply.tool_calls[0]["name"]}

    async def answer(state: State) -> State:
        reply = await model.ainvoke(
            [HumanMessage(state["question"])], config={"tags": [ANSWER_TAG]}
        )
        return {"answer": reply.text}

    g = StateGraph(State)
    for name, fn in (("think", think), ("act", act), ("answer", answer)):
        g.add_node(name, fn)
    g.add_edge(START, "think")
    g.add_edge("think", "act")
    g.add_edge("act", "answer")
    g.add_edge("answer", END)
    return g.compile(checkpointer=InMemorySaver())


async def _bare_turn(graph: Any) -> None:
    config = {"configurable": {"thread_id": uuid.uuid4().hex}}
    async for _ in graph.astream({"question": "해지 조건은?"}, config, stream_mode=STREAM_MODES):
        pass


async def _events_turn(graph: Any) -> None:
    async for _ in stream_events(
        graph,
        {"question": "해지 조건은?"},
        thread_id=uuid.uuid4().hex,
        output=lambda values: (values["answer"], []),
    ):
        pass


async def _overhead(turns: int) -> dict[str, Any]:
    graph = build_graph(ScriptedChatModel(_reply))
    times: dict[str, list[float]] = {"bare": [], "events": []}
    runners = {"bare": _bare_turn, "events": _events_turn}
    for i in range(WARMUP + turns):
        for name in ("bare", "events") if i % 2 else ("events", "bare"):
            started = time.perf_counter()
            await runners[name](graph)
            if i >= WARMUP:
                times[name].append((time.perf_counter() - started) * 1000)
    out: dict[str, Any] = {"turns": turns}
    for name, ms in times.items():
        q = statistics.quantiles(ms, n=10)
        out[name] = {"p50_ms": round(statistics.median(ms), 3), "p90_ms": round(q[8], 3)}
    out["ratio_p50"] = round(out["events"]["p50_ms"] / out["bare"]["p50_ms"], 3)
    out["target_ratio"] = TARGET_RATIO
    out["pass"] = out["ratio_p50"] <= TARGET_RATIO
    return out


def _local_model() -> dict[str, Any]:
    from dure.llm.local import local_chat_model
    from dure.settings import Settings

    settings = Settings()
    if not settings.model_path.is_file():
        return {"error": f"model file missing: {settings.model_path} (run `dure models pull`)"}
    model = local_chat_model(settings, "fast")
    load_seconds = model.engine().load_seconds

    # Prompt processing: a long prompt that shares no prefix with a previous one, 1 new token.
    facts = " ".join(f"제{i}조는 {i * 7}일 이내에 서면으로 통지한다." for i in range(1, 25))
    started = time.perf_counter()
    reply = model.invoke([HumanMessage(f"{facts}\n위 조항 중 제3조는?")], max_tokens=1)
    prompt_tokens = reply.usage_metadata["input_tokens"]
    prompt_tps = prompt_tokens / (time.perf_counter() - started)

    # Generation: time between the first and the last streamed token of a long answer.
    stamps: list[float] = []
    chunks = []
    for chunk in model.stream([HumanMessage("1부터 60까지 쉼표로 세어 주세요.")], max_tokens=96):
        chunks.append(chunk)
        if chunk.text:
            stamps.append(time.perf_counter())
    generated = sum(chunks[1:], chunks[0]).usage_metadata["output_tokens"]
    gen_tps = (generated - 1) / (stamps[-1] - stamps[0]) if len(stamps) > 1 else 0.0
    return {
        "model": settings.model_path.name,
        "n_threads": settings.local.n_threads,
        "load_seconds": round(load_seconds, 2),
        "prompt_tokens": prompt_tokens,
        "prompt_tokens_per_s": round(prompt_tps, 1),
        "generated_tokens": generated,
        "generated_tokens_per_s": round(gen_tps, 1),
    }


def run() -> dict[str, Any]:
    """Measure, print a table, return the numbers."""
    overhead = asyncio.run(_overhead(TURNS))
    print(f"\nper-turn time over {overhead['turns']} turns (scripted model, 3 LLM calls a turn)")
    print(f"{'':28}{'p50 ms':>10}{'p90 ms':>10}")
    for name, label in (("bare", "bare LangGraph astream"), ("events", "dure stream_events")):
        row = overhead[name]
        print(f"{label:28}{row['p50_ms']:>10.2f}{row['p90_ms']:>10.2f}")
    verdict = "PASS" if overhead["pass"] else "FAIL"
    print(f"ratio of p50s: {overhead['ratio_p50']:.2f} (target ≤ {TARGET_RATIO}) {verdict}")

    local = _local_model()
    print("\nlocal model")
    for key, value in local.items():
        print(f"  {key:24}{value}")
    return {"overhead": overhead, "local_model": local}


if __name__ == "__main__":
    run()
