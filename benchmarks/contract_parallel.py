"""The contract agent's parallel executor: three independent 200 ms tools vs one.

Each `hybrid_search` call blocks for 200 ms (a slow index; the registry runs sync tools in
worker threads) and then searches the real sample contract. Measured twice: the executor
nodes alone (`executor` = the seed's sequential loop, `parallel_executor`), and whole turns
through the graph (scripted model; one tool, three tools in parallel, and three tools with
`max_parallel_tools=1`, which routes them to the sequential executor).

Pass criterion (issue 4): three independent tools finish in ≤ 1.3× one tool's time.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver

from dure.agent import AgentContext
from dure.agents.contract import AGENT, nodes
from dure.agents.contract.library import open_library
from dure.agents.contract.state import initial_state
from dure.events import stream_turn
from dure.llm import ModelSet
from dure.settings import Settings
from dure.testing import ScriptedChatModel, tool_call, tool_calls
from dure.tools import signature

ROOT = Path(__file__).resolve().parents[1]
CONTRACT = ROOT / "examples" / "contracts" / "software_dev.md"
TOOL_SECONDS = 0.2
REPEATS = 3
LIMIT = 1.3
QUESTION = "대금 지급과 지연, 해지 조건"
# The first query is the question itself, which the planner's rule searches anyway: a turn
# with one tool runs exactly one search, a turn with three runs three.
QUERIES = (QUESTION, "지체상금", "계약 해지")


class SlowLibrary:
    """The real collection, with every search taking `TOOL_SECONDS` longer."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def add_document(self, path_or_text: Any, kind: str = "document") -> str:
        return self.inner.add_document(path_or_text, kind=kind)

    def get_contract(self, doc_id: str) -> Any:
        return self.inner.get_contract(doc_id)

    def search(self, query: str, top_k: int = 5, kind: Any = None, doc_id: Any = None) -> list:
        time.sleep(TOOL_SECONDS)
        return self.inner.search(query, top_k=top_k, kind=kind, doc_id=doc_id)


def _calls(queries: tuple[str, ...]) -> list[dict[str, Any]]:
    return [
        {
            "name": "hybrid_search",
            "args": {"query": q},
            "signature": signature("hybrid_search", {"query": q}),
            "origin": "llm",
        }
        for q in queries
    ]


async def _nodes(settings: Settings, library: SlowLibrary, contract_id: str) -> dict[str, float]:
    deps = nodes.Deps(settings, ModelSet(settings, ScriptedChatModel([])), library)
    out: dict[str, list[float]] = {"one": [], "sequential": [], "parallel": []}
    for _ in range(REPEATS):
        for name, node, queries in (
            ("one", nodes.executor, QUERIES[:1]),
            ("sequential", nodes.executor, QUERIES),
            ("parallel", nodes.parallel_executor, QUERIES),
        ):
            state = {**initial_state("q", contract_id), "next_tools": _calls(queries)}
            started = time.perf_counter()
            update = await node(state, deps)
            out[name].append(time.perf_counter() - started)
            assert all(h["ok"] for h in update["tool_history"]), update["tool_history"]
    return {k: statistics.median(v) for k, v in out.items()}


async def _turns(settings: Settings, library: SlowLibrary) -> dict[str, float]:
    done = {"is_sufficient": True, "reasoning": "충분", "missing_info": None}
    three = tool_calls(*[("hybrid_search", {"query": q}) for q in QUERIES])
    one = tool_call("hybrid_search", query=QUERIES[0])
    out: dict[str, list[float]] = {"one": [], "parallel": [], "sequential": []}
    for _ in range(REPEATS):
        for name, plan, limit in (
            ("one", one, 4),
            ("parallel", three, 4),
            ("sequential", three, 1),
        ):
            s = settings.model_copy(deep=True)
            s.contract.max_parallel_tools = limit
            model = ScriptedChatModel([plan, done, "답"])
            ctx = AgentContext(s, ModelSet(s, model), InMemorySaver(), {"library": library})
            ctx.options["contract"] = CONTRACT
            started = time.perf_counter()
            events = [e async for e in stream_turn(AGENT, ctx, "bench", QUESTION)]
            out[name].append(time.perf_counter() - started)
            assert events[-1].content == "답", events[-1]
    return {k: statistics.median(v) for k, v in out.items()}


def run() -> dict[str, Any]:
    """Measure, print a table, return the results."""
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=tmp, enable_cache=False, search={"store": "memory"})
        probe = AgentContext(settings, ModelSet(settings, ScriptedChatModel([])), None, {})
        probe.options["collection"] = "bench-parallel"
        library = SlowLibrary(open_library(probe))
        contract_id = library.add_document(CONTRACT, kind="contract")
        results = {
            "nodes": asyncio.run(_nodes(settings, library, contract_id)),
            "turns": asyncio.run(_turns(settings, library)),
        }
    for part in results.values():
        part["parallel_over_one"] = part["parallel"] / part["one"]
        part["sequential_over_one"] = part["sequential"] / part["one"]
    results["limit"] = LIMIT
    results["pass"] = all(
        p["parallel_over_one"] <= LIMIT for p in (results["nodes"], results["turns"])
    )
    print(
        f"contract_parallel — three independent {TOOL_SECONDS * 1000:.0f} ms tools (median of {REPEATS})"
    )
    print(
        f"{'measured':8} {'one':>8} {'3 parallel':>11} {'3 sequential':>13} {'par/one':>8} {'seq/one':>8}"
    )
    for name in ("nodes", "turns"):
        p = results[name]
        print(
            f"{name:8} {p['one']:>7.3f}s {p['parallel']:>10.3f}s {p['sequential']:>12.3f}s "
            f"{p['parallel_over_one']:>8.2f} {p['sequential_over_one']:>8.2f}"
        )
    print(f"target parallel ≤ {LIMIT}× one: {'PASS' if results['pass'] else 'FAIL'}")
    return results


if __name__ == "__main__":
    run()
