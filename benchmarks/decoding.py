"""Repetition penalty for free-text answers on the default local model, chosen by measurement.

The contract agent's real answer prompt (system prompt, the gold articles as collected
information, the question, the answer task — `dure.agents.contract.context.answer_messages`)
for each dev question that carries keywords (`benchmarks/data/latency/contract_dev.jsonl`),
plus free-text requests that tend to repeat themselves, decoded greedily at each penalty in
`PENALTIES` (llama.cpp's `repeat_penalty` over the last 64 generated tokens; JSON replies are
never penalised). Per penalty: looping rate (`dure.llm.answer.loop_start` fired — the loop cut
stays on, so a looping answer ends there), keyword coverage, invented-number rate, output
tokens and tokens per second. `DURE_BENCH_DECODING_PENALTIES=1.0,1.1` overrides the list.
"""

from __future__ import annotations

import asyncio
import os
import re
import statistics
import time
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from benchmarks._turns import CONTRACTS, DATA, load_jsonl
from dure.agents.contract import prompts
from dure.agents.contract.context import answer_messages
from dure.documents.contract import parse_contract
from dure.korean.figures import unsupported
from dure.llm.answer import loop_start
from dure.llm.local import LocalChatModel
from dure.settings import get_settings

PENALTIES = (1.0, 1.05, 1.1, 1.2)
MAX_TOKENS = 320
#: Requests that invite a small model to list and repeat (no keywords, looping only).
OPEN_REQUESTS = [
    "회의록 작성 요령을 항목별로 자세히 알려줘.",
    "한국의 사계절을 각각 세 문장씩 설명해 줘.",
    "신입 사원에게 보내는 환영 메일을 써 줘.",
    "프로젝트 일정이 늦어질 때 고객에게 보낼 사과문을 써 줘.",
]


def _contract_prompts() -> list[tuple[list[BaseMessage], list[list[str]], str]]:
    out = []
    for q in load_jsonl(DATA / "latency" / "contract_dev.jsonl"):
        if not q.get("keywords") or not q.get("gold_articles"):
            continue
        path = CONTRACTS / f"{q['contract']}.md"
        contract = parse_contract(path.read_text("utf-8"), path.stem)
        articles = [a for no in q["gold_articles"] if (a := contract.get(no))]
        info = {
            "tool": "get_article_by_index",
            "ok": True,
            "content": "",
            "articles": [
                {"doc": path.stem, "kind": "contract", "article_no": a.no, "text": a.text}
                for a in articles
            ],
        }
        state: Any = {"collected_info": [info], "user_message": q["query"]}
        messages = answer_messages(state, prompts.RESPOND_TASK)
        sources = "\n".join(a.text for a in articles) + "\n" + q["query"]
        out.append((messages, q["keywords"], sources))
    return out


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


async def _one(model: LocalChatModel, messages: list[BaseMessage]) -> tuple[str, int, float]:
    started = time.perf_counter()
    reply = await model.ainvoke(messages, max_tokens=MAX_TOKENS)
    seconds = time.perf_counter() - started
    tokens = reply.usage_metadata["output_tokens"] if reply.usage_metadata else 0
    return str(reply.text), tokens, seconds


def _model(penalty: float) -> LocalChatModel:
    s = get_settings()
    return LocalChatModel(
        model_path=str(s.model_path),
        n_ctx=s.local.n_ctx,
        n_threads=s.local.n_threads,
        prompt_cache_mb=s.local.prompt_cache_mb,
        repeat_penalty=penalty,
    )


def _cases() -> list[tuple[list[BaseMessage], list[list[str]], str]]:
    opens: list[tuple[list[BaseMessage], list[list[str]], str]] = [
        ([SystemMessage("한국어로 답하세요."), HumanMessage(r)], [], "") for r in OPEN_REQUESTS
    ]
    return [*_contract_prompts(), *opens]


async def _warm() -> None:
    """Evaluate every prompt once, so no penalty pays prompt evaluation the others skip."""
    model = _model(1.0)
    for messages, _, _ in _cases():
        await model.ainvoke(messages, max_tokens=1)


async def _measure(penalty: float) -> dict[str, Any]:
    model = _model(penalty)
    loops = invented = 0
    hit = total = tokens = 0
    rates: list[float] = []
    cases = _cases()
    n_contract = sum(1 for c in cases if c[1])
    for messages, keywords, sources in cases:
        text, n, seconds = await _one(model, messages)
        loops += loop_start(text) is not None
        if keywords:
            found = [any(_squash(k) in _squash(text) for k in forms) for forms in keywords]
            hit, total = hit + sum(found), total + len(found)
            invented += bool(unsupported(text, [sources]))
        tokens += n
        rates.append(n / seconds if seconds else 0.0)
    n_all = len(cases)
    return {
        "answers": n_all,
        "looping_rate": round(loops / n_all, 3),
        "keyword_coverage": round(hit / total, 3) if total else None,
        "invented_number_rate": round(invented / n_contract, 3) if n_contract else None,
        "output_tokens_mean": round(tokens / n_all, 1),
        "tokens_per_s_p50": round(statistics.median(rates), 2),
    }


def run() -> dict[str, Any]:
    """Every penalty on the same prompts, in one process; prints one line per penalty."""
    raw = os.environ.get("DURE_BENCH_DECODING_PENALTIES")
    penalties = [float(p) for p in raw.split(",")] if raw else list(PENALTIES)
    asyncio.run(_warm())
    rows = {}
    for penalty in penalties:
        rows[str(penalty)] = row = asyncio.run(_measure(penalty))
        print(f"repeat_penalty {penalty:4}  {row}", flush=True)
    return {"rows": rows, "max_tokens": MAX_TOKENS}


if __name__ == "__main__":
    run()
