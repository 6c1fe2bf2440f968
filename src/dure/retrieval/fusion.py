"""Fusing the keyword and dense lists into one ranking.

Three ways, chosen by `search.fusion` (the choice and its numbers: `benchmarks/search.py`):

- `rrf`: weighted reciprocal-rank fusion, Σ weight / (k + rank) — ranks only;
- `minmax`: Σ weight · score scaled to [0, 1] within its list (best 1, worst 0);
- `zscore`: Σ weight · score scaled by its list's mean ± 3 standard deviations (distribution-
  based), so one list's small margin counts for less than another's clear lead.

An id missing from a list scores 0 there. Ties keep the order of first appearance.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from dure.settings import SearchSettings

__all__ = ["fuse", "score_fusion", "weighted_rrf"]

Scored = Sequence[tuple[str, float]]


def weighted_rrf(
    lists: Sequence[tuple[Sequence[str], float]], k: int = 60
) -> list[tuple[str, float]]:
    """Fuse ranked id lists, each with a weight, into one ranking (best first).

    A weight of 0 drops a list; ties keep the order of first appearance, so the list given
    first wins them.
    """
    scores: dict[str, float] = {}
    for ids, weight in lists:
        if weight <= 0:
            continue
        for rank, item in enumerate(ids, start=1):
            scores[item] = scores.get(item, 0.0) + weight / (k + rank)
    return sorted(scores.items(), key=lambda p: -p[1])


def _scaled(found: Scored, how: str) -> dict[str, float]:
    if not found:
        return {}
    values = np.array([s for _, s in found], dtype=np.float64)
    if how == "minmax":
        low, span = values.min(), values.max() - values.min()
    else:
        mean, sd = values.mean(), values.std()
        low, span = mean - 3 * sd, 6 * sd
    if span <= 1e-12:  # one result, or all equal: each is as good as the best
        return {rid: 1.0 for rid, _ in found}
    return {rid: float((s - low) / span) for rid, s in found}


def score_fusion(lists: Sequence[tuple[Scored, float]], how: str) -> list[tuple[str, float]]:
    """Σ weight · scaled score over the lists (`how`: `minmax` or `zscore`), best first."""
    scores: dict[str, float] = {}
    for found, weight in lists:
        if weight <= 0:
            continue
        for rid, value in _scaled(found, how).items():
            scores[rid] = scores.get(rid, 0.0) + weight * value
    return sorted(scores.items(), key=lambda p: -p[1])


def fuse(lists: dict[str, list[tuple[str, float]]], s: SearchSettings) -> list[tuple[str, float]]:
    """The `keyword`, `dense` and `paragraph` lists fused as the settings say."""
    weighted = [
        (lists.get("keyword", []), s.keyword_weight),
        (lists.get("dense", []), s.dense_weight),
        (lists.get("paragraph", []), s.paragraph_weight),
    ]
    if s.fusion == "rrf":
        return weighted_rrf([([rid for rid, _ in found], w) for found, w in weighted], k=s.rrf_k)
    return score_fusion(weighted, s.fusion)
