"""The fusion grid of `benchmarks/search.py` and the rule that picks one from it.

Every candidate runs on the same two lists per question (`Collection.ranked_lists`), fused by
`dure.retrieval.fusion`, so the grid measures exactly what `SearchSettings` would ship.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dure.retrieval import Collection
from dure.retrieval.evaluate import score_positions
from dure.retrieval.fusion import fuse as fuse_lists
from dure.settings import SearchSettings

SINGLES = ("kiwi_bm25", "kiwi_bm25+thesaurus", "dense_e5", "dense_e5+thesaurus")
DEPTH = 50


@dataclass(frozen=True)
class Lists:
    """One question's keyword, dense and paragraph lists, (record id, score) best first."""

    keyword: list[tuple[str, float]]
    dense: list[tuple[str, float]]
    paragraph: list[tuple[str, float]]

    @property
    def keyword_ids(self) -> list[str]:
        return [rid for rid, _ in self.keyword]

    @property
    def dense_ids(self) -> list[str]:
        return [rid for rid, _ in self.dense]


@dataclass(frozen=True)
class Candidate:
    """One fusion setting: what `SearchSettings` would hold."""

    fusion: str
    keyword_weight: float
    dense_weight: float
    rrf_k: int
    thesaurus: bool
    #: The paragraph list's weight (0: the two article lists only).
    paragraph_weight: float = 0.0

    @property
    def name(self) -> str:
        k = f"_k{self.rrf_k}" if self.fusion == "rrf" else ""
        weights = f"{self.keyword_weight:g}:{self.dense_weight:g}"
        if self.paragraph_weight:
            weights += f":p{self.paragraph_weight:g}"
        return f"{self.fusion}_{weights}{k}" + ("+thesaurus" if self.thesaurus else "")

    def settings(self) -> SearchSettings:
        return SearchSettings(
            fusion=self.fusion,  # type: ignore[arg-type]
            keyword_weight=self.keyword_weight,
            dense_weight=self.dense_weight,
            rrf_k=self.rrf_k,
            thesaurus=self.thesaurus,
            paragraph_weight=self.paragraph_weight,
        )


def grid() -> list[Candidate]:
    """Rank fusion over weights and k; score fusions over weights; each with and without the
    thesaurus; and score fusions with the paragraph list. `rrf_1:1_k60` (plain RRF) is among
    them."""
    weights = [(1, 1), (2, 1), (1, 2), (3, 2), (2, 3), (3, 1), (1, 3)]
    out = [
        Candidate("rrf", wk, wd, k, thes)
        for thes in (False, True)
        for wk, wd in weights
        for k in (10, 30, 60)
    ]
    out += [
        Candidate(how, wk, wd, 60, thes)
        for thes in (False, True)
        for how in ("minmax", "zscore")
        for wk, wd in weights
    ]
    out += [  # with the paragraph list, around the best two-list score fusions
        Candidate(how, wk, wd, 60, True, wp)
        for how in ("minmax", "zscore")
        for wk, wd in [(1, 3), (2, 3)]
        for wp in (1, 2, 3)
    ]
    return out


def lists_for(col: Collection, query: str, doc_id: str | None, thesaurus: bool) -> Lists:
    found = col.ranked_lists(query, DEPTH, doc_id=doc_id, thesaurus=thesaurus)
    return Lists(found["keyword"], found["dense"], found.get("paragraph", []))


def fuse(c: Candidate, lists: Lists) -> list[str]:
    """Record ids, best first, as candidate `c` ranks them."""
    named = {"keyword": lists.keyword, "dense": lists.dense, "paragraph": lists.paragraph}
    fused = fuse_lists(named, c.settings())
    return [rid for rid, _ in fused]


def shipped_name(s: SearchSettings) -> str:
    return Candidate(
        s.fusion, s.keyword_weight, s.dense_weight, s.rrf_k, s.thesaurus, s.paragraph_weight
    ).name


def choose(
    per_set: dict[str, Any],
    pooled: dict[str, dict[str, list[int | None]]],
    dev_sets: list[str],
    blind_sets: list[str],
    candidates: list[Candidate],
) -> dict[str, Any]:
    """The best candidate on the pooled dev sets (hit@1, then MRR), and for every candidate the
    issue's rule on the blind sets, measured after the choice: above the best single list
    pooled, and within one question of the best single list on every blind set.

    `pooled` holds each method's first right ranks per question, pooled as `dev` and `blind`."""

    def hits1(method: str, name: str) -> int:
        o = per_set[name]["methods"][method]["overall"]
        return round(o["hit@1"] * o["n"])

    dev = {m: score_positions(p) for m, p in pooled["dev"].items()}
    blind = {m: score_positions(p) for m, p in pooled["blind"].items()}
    best_single = max(SINGLES, key=lambda m: (blind[m]["hit@1"], blind[m]["mrr"]))

    def rule(method: str) -> bool:
        return blind[method]["hit@1"] > blind[best_single]["hit@1"] and all(
            hits1(method, s) >= max(hits1(m, s) for m in SINGLES) - 1 for s in blind_sets
        )

    table = [
        {
            "name": c.name,
            "dev_hit@1": dev[c.name]["hit@1"],
            "dev_mrr": dev[c.name]["mrr"],
            "blind_hit@1": blind[c.name]["hit@1"],
            "blind_hit@3": blind[c.name]["hit@3"],
            "blind_rule": rule(c.name),
        }
        for c in candidates
    ]
    table.sort(key=lambda row: (row["dev_hit@1"], row["dev_mrr"]), reverse=True)
    return {
        "chosen_on": dev_sets,
        "best": table[0]["name"],
        "shipped": shipped_name(SearchSettings()),
        "best_single_blind": best_single,
        "best_single_blind_pooled": blind[best_single],
        "dure_blind_pooled": blind["dure"],
        "dure_dev_pooled": dev["dure"],
        "dure_blind_rule": rule("dure"),
        "table": table,
    }
