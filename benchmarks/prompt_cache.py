"""The local model's prompt cache (`local.prompt_cache_mb`): two prompts with different long
prefixes, asked in turn (as a turn's planner and answer calls, or two threads, alternate), with
the cache off and on. The first call of each prompt evaluates its whole prefix either way; a
repeat restores it from the cache instead. Per-call seconds p50, and the ratio off / on."""

from __future__ import annotations

import asyncio
import statistics
import time
from pathlib import Path
from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage

from dure.llm.local import LocalChatModel
from dure.settings import get_settings

ROOT = Path(__file__).resolve().parents[1]
ROUNDS = 3


def _prompts() -> list[list[Any]]:
    contract = (ROOT / "examples" / "contracts" / "software_dev.md").read_text(encoding="utf-8")
    answer = "당신은 계약서 상담원입니다. 아래 조항만 근거로 답하세요.\n" + contract[:1500]
    plan = "당신은 검색 계획을 세우는 플래너입니다. 목차:\n" + contract[1500:3000]
    return [
        [SystemMessage(answer), HumanMessage("지체상금은 얼마야?")],
        [SystemMessage(plan), HumanMessage("지체상금 관련 조항을 찾는 계획")],
    ]


async def _seconds(model: LocalChatModel) -> tuple[list[float], list[float]]:
    first: list[float] = []
    repeat: list[float] = []
    for round_no in range(ROUNDS):
        for messages in _prompts():
            started = time.perf_counter()
            await model.ainvoke(messages, max_tokens=8)
            (first if round_no == 0 else repeat).append(time.perf_counter() - started)
    return first, repeat


def run() -> dict[str, Any]:
    """Both settings in one run; prints and returns the table."""
    s = get_settings()
    rows: dict[str, dict[str, float]] = {}
    for label, cache_mb in (("off", 0), ("on", s.local.prompt_cache_mb or 2048)):
        model = LocalChatModel(
            model_path=str(s.model_path),
            n_ctx=4096,
            n_threads=s.local.n_threads,
            prompt_cache_mb=cache_mb,
        )
        first, repeat = asyncio.run(_seconds(model))
        rows[label] = {
            "first_p50_s": round(statistics.median(first), 2),
            "repeat_p50_s": round(statistics.median(repeat), 2),
        }
        print(
            f"cache {label:3}  first call p50 {rows[label]['first_p50_s']:5.1f} s   "
            f"repeat p50 {rows[label]['repeat_p50_s']:5.1f} s",
            flush=True,
        )
    ratio = rows["off"]["repeat_p50_s"] / max(rows["on"]["repeat_p50_s"], 1e-6)
    print(f"repeat calls: {ratio:.1f}× faster with the cache")
    return {"rows": rows, "repeat_speedup": round(ratio, 2), "n_threads": s.local.n_threads}
