"""Retrieval quality on a question set: hit@1, hit@3, hit@5 and MRR, overall and per kind.

A question set is JSONL, one question a line, with `id`, `query`, `doc` (the file stem of the
document it is about), `kind`, and its gold answer in one of two forms:

- `gold: ["제15조", …]` — acceptable articles of a contract or statute;
- `gold_heading: "휴가 > 연차휴가"` and/or `gold_span: "…"` — for documents chunked by heading:
  a chunk is right when its heading path ends with the gold heading, or its text contains the
  span. Both survive a change of chunker.

A ranking is a list of `Hit`-like objects (`doc_id`, `article_no`, `article_title`, `text`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Protocol

__all__ = ["Judged", "evaluate", "is_relevant", "load_questions", "score_positions"]

KS = (1, 3, 5)


class Judged(Protocol):
    """What a judged result needs."""

    doc_id: str
    article_no: str | None
    article_title: str | None
    text: str


def load_questions(path: str | Path) -> list[dict[str, Any]]:
    """The questions of a JSONL file, in order."""
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text or "")


def is_relevant(question: dict[str, Any], hit: Judged, doc_id: str | None = None) -> bool:
    """Whether `hit` answers `question` (`doc_id`: the question's document, when known)."""
    if doc_id is not None and hit.doc_id != doc_id:
        return False
    if "gold" in question:
        return hit.article_no in question["gold"]
    heading = _squash(question.get("gold_heading", ""))
    if heading and _squash(hit.article_title or "").endswith(heading):
        return True
    span = _squash(question.get("gold_span", ""))
    return bool(span) and span in _squash(hit.text)


def score_positions(positions: Sequence[int | None]) -> dict[str, float]:
    """hit@1/3/5 and MRR (within the top 10) from each question's first right rank (1-based)."""
    n = len(positions)
    out: dict[str, float] = {"n": n}
    for k in KS:
        out[f"hit@{k}"] = (
            round(sum(p is not None and p <= k for p in positions) / n, 4) if n else 0.0
        )
    mrr = sum(1 / p for p in positions if p is not None and p <= 10)
    out["mrr"] = round(mrr / n, 4) if n else 0.0
    return out


def evaluate(
    questions: Sequence[dict[str, Any]],
    rank: Callable[[dict[str, Any]], Sequence[Judged]],
    doc_ids: dict[str, str] | None = None,
) -> dict[str, Any]:
    """Scores of `rank(question)`, overall and per question kind, and the questions missed at 3.

    `doc_ids` maps a question's `doc` to its doc_id when the ranking spans several documents, so
    an article with the right number in another document does not count.
    """
    positions: list[int | None] = []
    misses = []
    for q in questions:
        doc_id = doc_ids.get(q["doc"]) if doc_ids else None
        ranked = list(rank(q))[:10]
        pos = next((i for i, h in enumerate(ranked, 1) if is_relevant(q, h, doc_id)), None)
        positions.append(pos)
        if pos is None or pos > 3:
            got = [h.article_no or (h.article_title or "")[-30:] for h in ranked[:3]]
            misses.append({"id": q["id"], "query": q["query"], "got": got})
    out: dict[str, Any] = {
        "overall": score_positions(positions),
        "by_kind": {},
        "misses": misses,
        "positions": positions,
    }
    for kind in sorted({q.get("kind", "") for q in questions}):
        idx = [i for i, q in enumerate(questions) if q.get("kind", "") == kind]
        out["by_kind"][kind] = score_positions([positions[i] for i in idx])
    return out
