"""One turn of any agent on the local model, timed and summarised, and the question sets'
places (for the latency and answers benchmarks)."""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path
from typing import Any

from dure.agent import AgentContext
from dure.agents import get_agent
from dure.events import stream_turn

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "benchmarks" / "data"
CONTRACTS = ROOT / "examples" / "contracts"
STANDARD = ROOT / "examples" / "standard" / "software_dev_standard.md"


def load_jsonl(path: Path) -> list[dict[str, Any]]:
    """One JSON object a line."""
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


async def timed_turn(ctx: AgentContext, agent: str, message: str) -> dict[str, Any]:
    started = time.perf_counter()
    first: dict[str, float] = {}
    tools = errors = 0
    done: Any = None
    texts: list[str] = []
    async for event in stream_turn(get_agent(agent), ctx, uuid.uuid4().hex, message):
        now = time.perf_counter() - started
        first.setdefault(event.type, now)
        tools += event.type == "tool_selected"
        errors += event.type == "error"
        if event.type == "sources":
            texts += [s.text for s in event.content]
        if event.type == "done":
            done = event
    usage = done.usage
    return {
        "seconds": round(time.perf_counter() - started, 2),
        "first_sources_s": round(first["sources"], 2) if "sources" in first else None,
        "first_token_s": round(first["token"], 2) if "token" in first else None,
        "llm_calls": usage.llm_calls,
        "by_node": {
            node: {
                "calls": n.llm_calls,
                "prompt": n.prompt_tokens,
                "completion": n.completion_tokens,
                "seconds": round(n.latency_ms / 1000, 2),
            }
            for node, n in usage.by_node.items()
        },
        "errors": errors,
        "tool_selections": tools,
        "cited": [s.article_no for s in done.sources if s.kind == "contract" and s.article_no],
        "answer": done.content,
        "source_texts": list(dict.fromkeys(texts)),
    }
