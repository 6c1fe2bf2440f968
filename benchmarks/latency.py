"""Seconds per answer on the default local model, per agent, with the LLM cache off.

Every question runs as a new thread through the same `stream_turn` the CLI and the server use,
on the real local model (`DURE_LOCAL__PATH`), real search and real tools (no network: web
tools fail as they would on a machine without keys). Per question: total seconds, seconds to
the first `sources` event and to the first answer token, LLM calls, prompt and completion
tokens per node, `error` events, and for the contract agent whether the gold articles were
cited (or an out-of-scope question refused without a tool).

Sets: the contract agent runs the twelve development questions in
`benchmarks/data/latency/contract_dev.jsonl` and, when present, the blind twelve in
`benchmarks/data/answers/latency_contract.jsonl`; the other agents run the few questions below.
`DURE_BENCH_LATENCY=contract,pte` limits the agents. A recorded run at a named commit
(`benchmarks/data/latency/baseline-*.json`) is printed beside this one.

Floors (issue 17, contract agent, 12 unseen questions): no `error`, gold cited or refused in
≥ 85%, median ≤ 30 s, none over 90 s.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import tempfile
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver

from benchmarks._turns import CONTRACTS, DATA, STANDARD, load_jsonl, timed_turn
from dure.agent import AgentContext
from dure.llm import ModelSet
from dure.settings import Settings

SETS = {
    "dev": DATA / "latency" / "contract_dev.jsonl",
    "blind": DATA / "answers" / "latency_contract.jsonl",
}
OTHER_AGENTS: dict[str, list[str]] = {
    "assistant": ["144의 제곱근에 3을 곱하면?", "오늘 무슨 요일이야?", "안녕! 넌 뭘 할 수 있어?"],
    "tasks": ["내일 12시 반에 강남역 근처에서 4명이서 점심 먹을 곳 추천해줘"],
    "pte": ["LangGraph가 뭔지 검색하고 요약해줘", "1234 곱하기 5678은?"],
}
FLOOR_MEDIAN_S = 30.0
FLOOR_MAX_S = 90.0
FLOOR_CITED = 0.85


def _contract_ok(q: dict[str, Any], row: dict[str, Any]) -> bool:
    if q["kind"] == "out_of_scope":
        return row["tool_selections"] == 0 and not row["cited"]
    return set(q["gold_articles"]) <= set(row["cited"])


def _summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    secs = sorted(r["seconds"] for r in rows)
    ttft = sorted(r["first_token_s"] for r in rows if r["first_token_s"] is not None)
    src = sorted(r["first_sources_s"] for r in rows if r["first_sources_s"] is not None)
    out: dict[str, Any] = {
        "n": len(rows),
        "p50_s": round(statistics.median(secs), 1),
        "p95_s": round(secs[min(len(secs) - 1, round(0.95 * (len(secs) - 1)))], 1),
        "max_s": secs[-1],
        "first_token_p50_s": round(statistics.median(ttft), 1) if ttft else None,
        "first_sources_p50_s": round(statistics.median(src), 1) if src else None,
        "llm_calls_p50": statistics.median(r["llm_calls"] for r in rows),
        "errors": sum(r["errors"] for r in rows),
    }
    if rows and "ok" in rows[0]:
        out["cited_or_refused"] = round(sum(r["ok"] for r in rows) / len(rows), 3)
        out["floors"] = (
            out["errors"] == 0
            and out["cited_or_refused"] >= FLOOR_CITED
            and out["p50_s"] <= FLOOR_MEDIAN_S
            and out["max_s"] <= FLOOR_MAX_S
        )
    return out


async def _run(settings: Settings, agents: list[str]) -> dict[str, Any]:
    models = ModelSet(settings)
    results: dict[str, Any] = {}
    for agent in agents:
        if agent == "contract":
            for name, path in SETS.items():
                if not path.exists():
                    continue
                rows = []
                for q in load_jsonl(path):
                    options = {
                        "contract": CONTRACTS / f"{q['contract']}.md",
                        "standard": STANDARD,
                        "collection": f"latency-{q['contract']}",
                    }
                    ctx = AgentContext(settings, models, InMemorySaver(), options)
                    row = {
                        "id": q["id"],
                        "kind": q["kind"],
                        **await timed_turn(ctx, agent, q["query"]),
                    }
                    row["ok"] = _contract_ok(q, row)
                    rows.append(row)
                    print(f"  {agent}/{name} {q['id']} {row['seconds']:6.1f}s ok={row['ok']}")
                results[f"contract/{name}"] = {"summary": _summary(rows), "rows": rows}
        else:
            ctx = AgentContext(settings, models, InMemorySaver(), {})
            rows = []
            for message in OTHER_AGENTS[agent]:
                rows.append({"query": message, **await timed_turn(ctx, agent, message)})
                print(f"  {agent} {rows[-1]['seconds']:6.1f}s {message}")
            results[agent] = {"summary": _summary(rows), "rows": rows}
    return results


def _baseline() -> dict[str, Any] | None:
    recorded = sorted((DATA / "latency").glob("baseline-*.json"))
    return json.loads(recorded[-1].read_text("utf-8")) if recorded else None


def run() -> dict[str, Any]:
    """Run the agents' questions on the local model; print p50/p95 beside the baseline."""
    agents = os.environ.get("DURE_BENCH_LATENCY", "contract,assistant,tasks,pte").split(",")
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=tmp, enable_cache=False)
        results = asyncio.run(_run(settings, [a.strip() for a in agents if a.strip()]))
    baseline = _baseline()
    print(
        f"{'set':18} {'n':>3} {'p50 s':>6} {'p95 s':>6} {'max s':>6} {'ttft':>5} {'calls':>5}  base p50"
    )
    for name, r in results.items():
        s = r["summary"]
        base = (baseline or {}).get("sets", {}).get(name, {}).get("summary", {}).get("p50_s")
        print(
            f"{name:18} {s['n']:>3} {s['p50_s']:>6} {s['p95_s']:>6} {s['max_s']:>6} "
            f"{s['first_token_p50_s'] or '-':>5} {s['llm_calls_p50']:>5}  {base or '-'}"
            + (f"  cited {s['cited_or_refused']} floors {s['floors']}" if "floors" in s else "")
        )
    return {"sets": results, "baseline": (baseline or {}).get("commit")}


if __name__ == "__main__":
    run()
