"""Plan-then-execute: independent steps run concurrently, dependent steps stay in order.

Tools are blocking 200 ms calls (run in worker threads, as the registry runs sync tools).
Baselines measured in the same run: one tool alone, and the same three steps with the
concurrency limit set to 1 (the seed's one-step-at-a-time executor). Measured twice: the DAG
runtime alone, and whole turns through the graph (scripted model, in-memory checkpointer).

Pass criteria (from issue 7): three independent tools finish in ≤ 1.3× one tool's time; a
dependent chain starts each step after the one it needs has finished and passes outputs on.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver
from pydantic import BaseModel

from dure.agent import AgentContext
from dure.agents.pte import AGENT
from dure.agents.pte.dag import run_plan
from dure.events import Done, stream_turn
from dure.llm import ModelSet
from dure.settings import PteSettings, Settings
from dure.testing import ScriptedChatModel
from dure.tools.base import Tool, ToolRegistry

TOOL_SECONDS = 0.2
REPEATS = 3
LIMIT = 1.3


class TextArgs(BaseModel):
    text: str


def _tools() -> tuple[ToolRegistry, list[tuple[str, float, float]]]:
    """Three blocking 200 ms tools, and the (name, start, end) log they write."""
    log: list[tuple[str, float, float]] = []

    def make(name: str) -> Tool:
        def work(text: str) -> str:
            start = time.perf_counter()
            time.sleep(TOOL_SECONDS)
            log.append((name, start, time.perf_counter()))
            return f"{name}({text})"

        return Tool(name, f"{name}: 200 ms", TextArgs, work)

    return ToolRegistry(make(n) for n in ("a", "b", "c")), log


ONE = [{"step_id": 1, "tool": "a", "input": "x"}]
INDEPENDENT = [
    {"step_id": 1, "tool": "a", "input": "x"},
    {"step_id": 2, "tool": "b", "input": "y"},
    {"step_id": 3, "tool": "c", "input": "z"},
]
CHAIN = [
    {"step_id": 1, "tool": "a", "input": "x"},
    {"step_id": 2, "tool": "b", "input_from": "step_1"},
    {"step_id": 3, "tool": "c", "input_from": "step_2"},
]


async def _runtime(plan: list[dict[str, Any]], max_parallel: int) -> float:
    registry, _ = _tools()
    started = time.perf_counter()
    run = await run_plan(plan, registry, max_parallel=max_parallel)
    elapsed = time.perf_counter() - started
    assert all(r["status"] == "success" for r in run.records)
    return elapsed


async def _turn(plan: list[dict[str, Any]], max_parallel: int) -> float:
    settings = Settings(enable_cache=False, pte=PteSettings(max_parallel_steps=max_parallel))
    model = ScriptedChatModel(
        [
            {"intent": "new_question", "rewritten_query": "벤치마크", "needs_tool": True},
            {"plan": plan},
            "완료",
        ]
    )
    registry, _ = _tools()
    ctx = AgentContext(
        settings=settings,
        models=ModelSet(settings, model),
        checkpointer=InMemorySaver(),
        options={"tools": registry},
    )
    started = time.perf_counter()
    events = [e async for e in stream_turn(AGENT, ctx, "bench", "벤치마크")]
    elapsed = time.perf_counter() - started
    assert isinstance(events[-1], Done) and events[-1].content == "완료"
    return elapsed


async def _chain_order() -> dict[str, Any]:
    registry, log = _tools()
    run = await run_plan(CHAIN, registry, max_parallel=4)
    ordered = all(log[i][2] <= log[i + 1][1] for i in range(len(log) - 1))
    return {
        "start_order": [name for name, _, _ in sorted(log, key=lambda e: e[1])],
        "each_step_starts_after_its_input": ordered,
        "final_output": run.records[-1]["output"],
        "outputs_passed_on": run.records[-1]["output"] == "c(b(a(x)))",
    }


def _median(samples: list[float]) -> float:
    return round(statistics.median(samples) * 1000, 1)


async def _measure(kind: str, plan: list[dict[str, Any]], max_parallel: int) -> float:
    measure = _runtime if kind == "runtime" else _turn
    return _median([await measure(plan, max_parallel) for _ in range(REPEATS)])


async def _run() -> dict[str, Any]:
    rows: dict[str, dict[str, float]] = {}
    for kind in ("runtime", "graph_turn"):
        one = await _measure(kind, ONE, 4)
        sequential = await _measure(kind, INDEPENDENT, 1)
        parallel = await _measure(kind, INDEPENDENT, 4)
        chain = await _measure(kind, CHAIN, 4)
        rows[kind] = {
            "one_tool_ms": one,
            "three_sequential_ms": sequential,
            "three_parallel_ms": parallel,
            "chain_of_three_ms": chain,
            "parallel_over_one": round(parallel / one, 3),
            "speedup_over_sequential": round(sequential / parallel, 2),
        }
    chain = await _chain_order()
    passed = (
        all(r["parallel_over_one"] <= LIMIT for r in rows.values())
        and chain["each_step_starts_after_its_input"]
        and chain["outputs_passed_on"]
    )
    return {"tool_ms": TOOL_SECONDS * 1000, "limit": LIMIT, **rows, "chain": chain, "pass": passed}


def run() -> dict[str, Any]:
    """Run the benchmark, print a table, return the results."""
    results = asyncio.run(_run())
    print(f"pte_parallel — three independent {results['tool_ms']:.0f} ms tools")
    print(f"{'':12} {'1 tool':>9} {'3 seq':>9} {'3 par':>9} {'chain 3':>9} {'par/1':>7}")
    for kind in ("runtime", "graph_turn"):
        r = results[kind]
        print(
            f"{kind:12} {r['one_tool_ms']:>7.1f}ms {r['three_sequential_ms']:>7.1f}ms "
            f"{r['three_parallel_ms']:>7.1f}ms {r['chain_of_three_ms']:>7.1f}ms "
            f"{r['parallel_over_one']:>6.2f}x"
        )
    chain = results["chain"]
    print(
        f"chain start order {chain['start_order']}, ordered: "
        f"{chain['each_step_starts_after_its_input']}, output: {chain['final_output']}"
    )
    print(f"limit ≤ {LIMIT}x one tool: {'PASS' if results['pass'] else 'FAIL'}")
    return results


if __name__ == "__main__":
    run()
