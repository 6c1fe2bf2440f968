"""Slot parser quality: per-slot precision / recall / F1 and exact full-utterance match.

Data: `tests/data/slots_dev.jsonl` (the development set, with corrections and distractor
numbers) and `tests/data/slots_holdout.jsonl` (written after the parser, never tuned on).
Baseline, in the same run: a naive first-match regex parser (no particles, corrections,
distractors or Korean number words). Targets on the dev set: F1 ≥ 0.95, exact ≥ 0.85.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from dure.agents.tasks.intents import get_intent
from dure.korean.slots.parser import parse_slots

DATA = Path(__file__).parents[1] / "tests" / "data"
SETS = {"dev": DATA / "slots_dev.jsonl", "holdout": DATA / "slots_holdout.jsonl"}
TARGET_F1, TARGET_EXACT = 0.95, 0.85

Parser = Callable[[str, str, datetime], dict[str, Any]]
#: Slot types added after these sets were labelled (they carry no gold for them).
UNLABELLED = ("exclusion", "requirement")


def rules(text: str, intent: str, now: datetime) -> dict[str, Any]:
    """The rule parser under test, its values in canonical form (these sets are so labelled)."""
    schema = get_intent(intent)
    said = parse_slots(text, schema, now).slots
    return {
        s.name: s.canonical_value(said[s.name])
        for s in schema.slots
        if s.name in said and s.type not in UNLABELLED
    }


def naive(text: str, intent: str, now: datetime) -> dict[str, Any]:
    """Baseline: the first "X에서", "N명", "N시 M분" — what a quick regex would do."""
    slots: dict[str, Any] = {}
    if intent == "lunch_recommendation" and (m := re.search(r"(\S+?)에서", text)):
        slots["location"] = m.group(1)
    if m := re.search(r"(\d+)\s*명", text):
        slots["party_size"] = int(m.group(1))
    if m := re.search(r"(\d{1,2})\s*시(?:\s*(\d{1,2})\s*분)?", text):
        hour = int(m.group(1))
        hour = hour + 12 if hour < 7 else hour
        moment = now.replace(hour=hour % 24, minute=int(m.group(2) or 0), second=0, microsecond=0)
        slots["datetime"] = (moment if moment >= now else moment + timedelta(days=1)).isoformat()
    return slots


def score(rows: list[dict[str, Any]], parser: Parser) -> dict[str, Any]:
    """Per-slot and overall (micro) precision, recall, F1; exact full-utterance match."""
    counts: dict[str, list[int]] = {}
    exact = 0
    started = time.perf_counter()
    for row in rows:
        got = parser(row["utterance"], row["intent"], datetime.fromisoformat(row["now"]))
        gold = row["slots"]
        exact += got == gold
        for slot in set(gold) | set(got):
            tp_fp_fn = counts.setdefault(slot, [0, 0, 0])
            if slot in got and got[slot] == gold.get(slot):
                tp_fp_fn[0] += 1
                continue
            if slot in got:
                tp_fp_fn[1] += 1
            if slot in gold:
                tp_fp_fn[2] += 1
    elapsed = time.perf_counter() - started

    def prf(tp: int, fp: int, fn: int) -> dict[str, float]:
        p = tp / (tp + fp) if tp + fp else 1.0
        r = tp / (tp + fn) if tp + fn else 1.0
        return {
            "precision": p,
            "recall": r,
            "f1": 2 * p * r / (p + r) if p + r else 0.0,
            "support": tp + fn,
        }

    per_slot = {slot: prf(*c) for slot, c in sorted(counts.items())}
    overall = prf(*(sum(c[i] for c in counts.values()) for i in range(3)))
    return {
        "utterances": len(rows),
        "exact": exact / len(rows),
        "overall": overall,
        "per_slot": per_slot,
        "ms_per_utterance": elapsed * 1000 / len(rows),
    }


def _table(name: str, ours: dict[str, Any], base: dict[str, Any]) -> None:
    print(f"\nslots — {name} set ({ours['utterances']} utterances)")
    print(f"{'slot':20} {'n':>4} {'P':>6} {'R':>6} {'F1':>6} {'base F1':>8}")
    for slot, m in ours["per_slot"].items():
        b = base["per_slot"].get(slot, {"f1": 0.0})
        print(
            f"{slot:20} {m['support']:>4} {m['precision']:>6.3f} {m['recall']:>6.3f} {m['f1']:>6.3f} {b['f1']:>8.3f}"
        )
    o, bo = ours["overall"], base["overall"]
    print(
        f"{'overall (micro)':20} {o['support']:>4} {o['precision']:>6.3f} {o['recall']:>6.3f} {o['f1']:>6.3f} {bo['f1']:>8.3f}"
    )
    print(
        f"exact match: {ours['exact']:.3f} (baseline {base['exact']:.3f}) · {ours['ms_per_utterance']:.2f} ms/utterance"
    )


def run() -> dict[str, Any]:
    """Score the rule parser and the baseline on both sets; print the tables."""
    results: dict[str, Any] = {"targets": {"f1": TARGET_F1, "exact": TARGET_EXACT}}
    for name, path in SETS.items():
        rows = [
            json.loads(line)
            for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()
        ]
        results[name] = {"rules": score(rows, rules), "baseline": score(rows, naive)}
        _table(name, results[name]["rules"], results[name]["baseline"])
    dev = results["dev"]["rules"]
    results["pass"] = dev["overall"]["f1"] >= TARGET_F1 and dev["exact"] >= TARGET_EXACT
    print(
        f"\ntargets on dev (F1 ≥ {TARGET_F1}, exact ≥ {TARGET_EXACT}): {'PASS' if results['pass'] else 'FAIL'}"
    )
    return results


if __name__ == "__main__":
    run()
