"""The contract agent with the real local model on the search dev set: cited gold, seconds.

For `SAMPLE` questions spread evenly over `tests/data/search_dev.jsonl` (so every kind — by
number, by title, paraphrase — and every sample contract is represented), one fresh thread
per question answers with the configured model (the local GGUF by default) over the default
search (Kiwi BM25 + dense, FAISS). Reported: the share of answers whose `sources` include a
gold article, the median seconds per answer, LLM calls per answer.

Baseline in the same run: the search layer alone (`Collection.search`, top 3, no model) on the
same questions and documents — does the agent's planning and citation beat plain search?

A question about the standard contract that names it ("표준계약서에서는 …") is asked of the
software contract with the standard bound (gold must be a `standard` source); one that does not
is asked of the standard contract as the thread's own document. Answers are capped at
`ANSWER_TOKENS` tokens: the metric is about sources, and a 2-core machine is slow.
`DURE_BENCH_DEVSET_N` sets the number of questions.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver

from dure.agent import AgentContext
from dure.agents.contract import AGENT
from dure.agents.contract.library import open_library
from dure.events import stream_turn
from dure.llm import ModelSet
from dure.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
DEV = ROOT / "tests" / "data" / "search_dev.jsonl"
CONTRACTS = ROOT / "examples" / "contracts"
STANDARD = ROOT / "examples" / "standard" / "software_dev_standard.md"
SAMPLE = 15
ANSWER_TOKENS = 128


def _sample() -> list[dict[str, Any]]:
    """`SAMPLE` questions spread evenly over the dev set (which is ordered by document, kind)."""
    rows = [json.loads(line) for line in DEV.read_text().splitlines() if line.strip()]
    rows = [r for r in rows if r.get("split", "dev") == "dev"]
    n = int(os.environ.get("DURE_BENCH_DEVSET_N") or SAMPLE)
    return rows[:: max(1, len(rows) // n)][:n]


def _binding(row: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """(agent options, the source kind a gold article must have)."""
    if row["doc"] != "software_dev_standard":
        return {"contract": CONTRACTS / f"{row['doc']}.md", "collection": "devset"}, "contract"
    if "표준" in row["query"]:
        return {
            "contract": CONTRACTS / "software_dev.md",
            "standard": STANDARD,
            "collection": "devset",
        }, "standard"
    return {"contract": STANDARD, "collection": "devset-standard-doc"}, "contract"


async def _ask(settings: Settings, models: ModelSet, row: dict[str, Any]) -> dict[str, Any]:
    options, gold_kind = _binding(row)
    ctx = AgentContext(settings, models, InMemorySaver(), options)
    started = time.perf_counter()
    events = [e async for e in stream_turn(AGENT, ctx, row["id"], row["query"])]
    seconds = time.perf_counter() - started
    done = events[-1]
    cited = [(s.kind, s.article_no) for s in done.sources]
    # Baseline: the search layer alone on the same document.
    library = open_library(ctx)
    doc_key = "standard" if gold_kind == "standard" else "contract"
    doc_id = library.add_document(Path(options[doc_key]), kind=doc_key)
    hits = library.search(row["query"], top_k=3, kind=doc_key, doc_id=doc_id)
    return {
        "id": row["id"],
        "kind": row["kind"],
        "doc": row["doc"],
        "query": row["query"],
        "gold": row["gold"],
        "cited": [no for _, no in cited],
        "hit": any(k == gold_kind and no in row["gold"] for k, no in cited),
        "search_top3_hit": any(h.article_no in row["gold"] for h in hits),
        "seconds": round(seconds, 1),
        "llm_calls": done.usage.llm_calls,
        "errors": [e.code for e in events if e.type == "error"],
        "tools": [
            f"{t['name']}({', '.join(map(str, t['args'].values()))})"
            for e in events
            if e.type == "tool_selected"
            for t in e.tools
        ],
        "answer": done.content[:120],
    }


async def _run(settings: Settings) -> list[dict[str, Any]]:
    models = ModelSet(settings)
    rows = []
    for row in _sample():
        result = await _ask(settings, models, row)
        print(
            f"{result['id']} {result['kind']:10} hit={int(result['hit'])} "
            f"search={int(result['search_top3_hit'])} {result['seconds']:6.1f}s "
            f"calls={result['llm_calls']} cited={result['cited']} gold={result['gold']} "
            f"tools={result['tools']}",
            flush=True,
        )
        rows.append(result)
    return rows


def run() -> dict[str, Any]:
    """Answer the sample with the configured model, print a table, return the results."""
    base = Settings()
    with tempfile.TemporaryDirectory() as tmp:
        settings = base.model_copy(update={"data_dir": Path(tmp), "enable_cache": False}, deep=True)
        settings.local.path = base.model_path  # the model stays where it was pulled
        settings.local.max_tokens = ANSWER_TOKENS
        rows = asyncio.run(_run(settings))
    by_kind = {
        kind: {
            "n": len(group),
            "gold_cited": sum(r["hit"] for r in group) / len(group),
            "search_top3": sum(r["search_top3_hit"] for r in group) / len(group),
        }
        for kind in dict.fromkeys(r["kind"] for r in rows)
        if (group := [r for r in rows if r["kind"] == kind])
    }
    results = {
        "provider": base.provider,
        "n_threads": base.local.n_threads,
        "answer_tokens": ANSWER_TOKENS,
        "questions": len(rows),
        "gold_cited_share": sum(r["hit"] for r in rows) / len(rows),
        "search_top3_share": sum(r["search_top3_hit"] for r in rows) / len(rows),
        "median_seconds": statistics.median(r["seconds"] for r in rows),
        "median_llm_calls": statistics.median(r["llm_calls"] for r in rows),
        "by_kind": by_kind,
        "rows": rows,
    }
    print(f"contract_devset — {len(rows)} dev questions, provider {base.provider}")
    print(f"{'kind':12} {'n':>3} {'agent cites gold':>17} {'search top-3':>13}")
    for kind, k in by_kind.items():
        print(f"{kind:12} {k['n']:>3} {k['gold_cited']:>17.2f} {k['search_top3']:>13.2f}")
    print(
        f"{'all':12} {len(rows):>3} {results['gold_cited_share']:>17.2f} "
        f"{results['search_top3_share']:>13.2f}   median {results['median_seconds']:.1f} s/answer, "
        f"{results['median_llm_calls']:.0f} LLM calls"
    )
    return results


if __name__ == "__main__":
    run()
