"""Retrieval quality on a question set with gold articles: Recall@1, Recall@3, MRR, per kind.

A question set is JSONL: `{"id", "query", "doc", "gold": ["제15조", …], "kind"}` where `doc`
names the document the question is about and `gold` lists the acceptable articles.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

__all__ = ["evaluate", "load_questions", "score_rankings"]


def load_questions(path: str | Path) -> list[dict[str, Any]]:
    """The questions of a JSONL file, in order."""
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def score_rankings(
    rankings: Sequence[Sequence[str | None]], golds: Sequence[Sequence[str]]
) -> dict[str, float]:
    """Recall@1, Recall@3 and MRR (within the top 10) of ranked article numbers."""
    n = len(rankings)
    r1 = r3 = mrr = 0.0
    for ranked, gold in zip(rankings, golds, strict=True):
        pos = next((i for i, a in enumerate(ranked[:10], start=1) if a in gold), None)
        if pos is not None:
            r1 += pos == 1
            r3 += pos <= 3
            mrr += 1 / pos
    if not n:
        return {"n": 0, "recall@1": 0.0, "recall@3": 0.0, "mrr": 0.0}
    return {
        "n": n,
        "recall@1": round(r1 / n, 4),
        "recall@3": round(r3 / n, 4),
        "mrr": round(mrr / n, 4),
    }


def evaluate(
    questions: Sequence[dict[str, Any]], rank: Callable[[dict[str, Any]], list[str | None]]
) -> dict[str, Any]:
    """Scores of `rank(question) -> ranked article numbers`, overall and per question kind."""
    rankings = [rank(q) for q in questions]
    golds = [q["gold"] for q in questions]
    out: dict[str, Any] = {"overall": score_rankings(rankings, golds), "by_kind": {}}
    for kind in sorted({q.get("kind", "") for q in questions}):
        idx = [i for i, q in enumerate(questions) if q.get("kind", "") == kind]
        out["by_kind"][kind] = score_rankings([rankings[i] for i in idx], [golds[i] for i in idx])
    out["misses"] = [
        {"id": q["id"], "query": q["query"], "gold": q["gold"], "got": r[:3]}
        for q, r in zip(questions, rankings, strict=True)
        if not any(a in q["gold"] for a in r[:3])
    ]
    return out
