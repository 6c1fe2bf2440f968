"""Weighted reciprocal-rank fusion: Σ weight / (k + rank) over the lists an item appears in."""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["weighted_rrf"]


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
