"""The Korean understanding decisions on the frozen blind sets (and the dev sets where they exist).

Per decision: accuracy, the share decided by each tier (rule / embedding / llm), and latency
p50/p95 per message. Cases run through the code paths the agents run, with the configured
models (the default local model where the LLM tier is reached).

    python -m benchmarks understanding                       # everything
    DURE_BENCH_DECISIONS=scope,route python -m benchmarks understanding
    DURE_BENCH_NO_LLM=1 python -m benchmarks understanding   # LLM-tier cases count as abstained
                                                             # (a follow-up keeps its wording)

Sets: `benchmarks/data/understanding/*.jsonl` (blind, frozen; see its README),
`benchmarks/data/understanding2/` (blind2: a second writer's set, frozen later; its slots
set a third writer's, 2026-12-01),
`understanding3/` to `understanding6/` (previous-turn, four more writers; understanding3 also
intent, a fifth writer's) and dev sets in
`tests/data/understanding/` when present, and `benchmarks/data/understanding_dev2/` (dev2: rows
helpers wrote for the example banks that did not go in; previous turn, route and scope; and
slots and intent sets written as dev).
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from benchmarks._understanding_paths import DECISIONS, Outcome
from dure.llm import ModelSet
from dure.settings import get_settings
from dure.testing import ScriptedChatModel

ROOT = Path(__file__).resolve().parents[1]
BLIND = ROOT / "benchmarks" / "data" / "understanding"
BLIND2 = ROOT / "benchmarks" / "data" / "understanding2"
BLIND3 = ROOT / "benchmarks" / "data" / "understanding3"  # previous-turn and intent
BLIND4 = ROOT / "benchmarks" / "data" / "understanding4"  # previous-turn only
BLIND5 = ROOT / "benchmarks" / "data" / "understanding5"  # previous-turn only
BLIND6 = ROOT / "benchmarks" / "data" / "understanding6"  # previous-turn only
DEV = ROOT / "tests" / "data" / "understanding"
DEV2 = ROOT / "benchmarks" / "data" / "understanding_dev2"


def _load(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def _measure(
    name: str,
    cases: list[dict[str, Any]],
    decide: Callable[[dict[str, Any], ModelSet, bool], Awaitable[Outcome]],
    models: ModelSet,
    llm: bool,
) -> dict[str, Any]:
    scores: list[float] = []
    by: Counter[str] = Counter()
    latency: list[float] = []
    wrong: list[dict[str, Any]] = []
    tp = fp = fn = 0
    parts: dict[str, list[float]] = {}
    for case in cases:
        started = time.perf_counter()
        outcome = await decide(case, models, llm)
        latency.append((time.perf_counter() - started) * 1000)
        by[outcome.decided_by] += 1
        scores.append(outcome.score)
        for part, value in (outcome.parts or {}).items():
            parts.setdefault(part, []).append(value)
        if outcome.counts:
            tp, fp, fn = tp + outcome.counts[0], fp + outcome.counts[1], fn + outcome.counts[2]
        if outcome.score < 1 and len(wrong) < 12:
            wrong.append({"id": case["id"], "got": outcome.got})
    n = len(cases)
    f1 = 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else None
    return {
        "micro_f1": round(f1, 3) if f1 is not None else None,
        "parts": {k: round(statistics.fmean(v), 3) for k, v in parts.items()},
        "decision": name,
        "cases": n,
        "accuracy": round(statistics.fmean(scores), 3) if scores else None,
        "decided_by": {k: round(v / n, 3) for k, v in sorted(by.items())},
        "p50_ms": round(_pct(latency, 0.5), 1),
        "p95_ms": round(_pct(latency, 0.95), 1),
        "examples_wrong": wrong,
    }


def run() -> dict[str, Any]:
    """Every decision on its blind and dev sets; prints one table."""
    settings = get_settings()
    llm = not os.environ.get("DURE_BENCH_NO_LLM")
    # LLM off: a stand-in whose every reply is unreadable, so reaching the LLM tier shows.
    models = ModelSet(settings) if llm else ModelSet(settings, ScriptedChatModel(lambda call: "-"))
    chosen = [d for d in os.environ.get("DURE_BENCH_DECISIONS", "").split(",") if d]
    rows: list[dict[str, Any]] = []
    for name, (file, decide) in DECISIONS.items():
        if chosen and name not in chosen:
            continue
        sets = (
            ("dev", DEV),
            ("dev2", DEV2),
            ("blind", BLIND),
            ("blind2", BLIND2),
            ("blind3", BLIND3),
        )
        for label, folder in (*sets, ("blind4", BLIND4), ("blind5", BLIND5), ("blind6", BLIND6)):
            cases = _load(folder / file)
            if not cases:
                continue
            row = asyncio.run(_measure(name, cases, decide, models, llm))
            rows.append({"set": label, **row})
            print(
                f"{name:9} {label:6} n={row['cases']:3}  acc={row['accuracy']}  "
                + (f"micro-F1={row['micro_f1']}  " if row["micro_f1"] is not None else "")
                + "".join(f"{k}={v}  " for k, v in row["parts"].items())
                + f"by={row['decided_by']}  p50={row['p50_ms']} ms  p95={row['p95_ms']} ms",
                flush=True,
            )
    return {"llm_tier": llm, "model": settings.provider, "rows": rows}
