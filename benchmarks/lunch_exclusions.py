"""Lunch exclusions (issue 19): what the rules read, and whether the dishes the tasks agent
names respect every stated exclusion — on the frozen blind set (`benchmarks/data/lunch_blind/`,
written without sight of the code) and on the dev set (`benchmarks/data/lunch_dev/`, written
by the developers beside the rules), scored and reported apart.

Measured only: nothing in the agent's rules, banks or tables is changed for the blind set.
A row is `{"id", "request", "now", "excluded": [labels]}`; a dev row also carries `replies`
(the request's own words for place, time and party, see `ANSWERS`).

1. Reading (rules, no model): the exclusions `parse_slots` (the shipped reader,
   `dure.korean.slots.diet`, as the agent's planner calls it) finds in each request, mapped to
   the set's labels by `READER_TO_LABEL` below; a label the reader has no word for counts as
   missed, and a word the mapping gives no label counts as a false positive. Precision, recall
   and exact match per request and per label; beside them, what the filter makes of the reading:
   a gold label is *covered* when the shipped filter (`dishes.allowed`) with the reader's
   exclusions removes every dish of the table that breaks it (`breaks` below), and an excluded
   food the parser took for a wish (the `cuisine` slot: "짜장면만 빼고" → 짜장면) is *inverted*.
2. End to end: each request is a new thread of the tasks agent through `stream_turn` (the CLI's
   path), its clock pinned to the request's `now`. A follow-up question is answered only with
   the request's own words for the slots the question asks for (`ANSWERS`: each one a substring
   of its request), at most once a slot; a question about a slot already answered, or one the
   request has no words for, ends the thread as "asked". Every dish of `dishes.json` the final
   answer names (longest names first, none counted inside a longer one) must break none of the
   gold labels; the answer's first paragraph (the conditions the user gave: "… 짬뽕 제외"), its
   echo of the exclusions ("(제외: 마라탕)") and the catalogue's restaurant names ("세종 짬뽕집")
   are not dishes named.

Modes (`DURE_BENCH_LUNCH_MODEL=none,local`, default both): `none` — every model call raises a
connection error (the agent's documented no-model path: rule question, rule order; the answer is
the workers' results by rule in either mode); `local` — the default local model (`DURE_LOCAL__PATH`), cache off.
`DURE_BENCH_LUNCH_SET=dev,blind,blind2` (default dev,blind) picks the sets;
`DURE_BENCH_LUNCH_LIMIT=N` runs the first N requests of each; Ctrl-C during a mode keeps (and scores)
the requests that finished. Places come from the shipped sample
catalogue (`DURE_BENCH_LUNCH_PLACES=sample`, the default), so a request outside its nine areas
is asked again and names no dish; `DURE_BENCH_LUNCH_PLACES=kakao` searches a Kakao Local
stand-in on loopback (`_kakao_loopback.py`) that finds restaurants anywhere, so every request
can reach its answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import tempfile
import time
import uuid
from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver

from benchmarks._kakao_loopback import loopback_kakao
from benchmarks._lunch_gold import (
    ANSWERS,
    BUDGETS,
    DIETS,
    LABEL_ALLERGENS,
    READER_TO_LABEL,
    breaks,
    gold_label,
    to_label,
)
from benchmarks._turns import DATA, load_jsonl
from dure.agent import AgentContext
from dure.agents import get_agent
from dure.agents.tasks.catalogue import restaurants
from dure.agents.tasks.dishes import Dish, allowed, dishes
from dure.agents.tasks.intents import LUNCH
from dure.events import stream_turn
from dure.korean.slots.diet import EXCLUSIONS
from dure.korean.slots.keywords import canonical_cuisine
from dure.korean.slots.parser import parse_slots
from dure.korean.time import as_seoul
from dure.llm import ModelSet
from dure.settings import Settings, get_settings
from dure.testing import Call, ScriptedChatModel

SETS = {
    "dev": DATA / "lunch_dev" / "requests.jsonl",
    "blind": DATA / "lunch_blind" / "requests.jsonl",
    # a second blind set, written after the first one's misses had been read
    "blind2": DATA / "lunch_blind2" / "requests.jsonl",
}
# --- 1. reading -------------------------------------------------------------------------------


def _now(row: dict[str, Any]) -> datetime:
    return as_seoul(datetime.fromisoformat(row["now"]))


def _read(row: dict[str, Any]) -> dict[str, Any]:
    parsed = parse_slots(row["request"], LUNCH, _now(row))
    words = list(parsed.slots.get("exclusions") or [])
    mapped = [to_label(w) for w in words]
    found = {m for m in mapped if m is not None}
    unlabelled = [w for w, m in zip(words, mapped, strict=True) if m is None]
    gold = {gold_label(g) for g in row["excluded"]}
    removed = {d.name for d in dishes()} - {d.name for d in allowed(dishes(), words)}
    covered = {g for g in gold if all(d.name in removed for d in dishes() if breaks(d, g))}
    needed = {d.name for d in dishes() if any(breaks(d, g) for g in gold)}
    wish = parsed.slots.get("cuisine")
    # a diet word as the wish ("비건이고") asks for what its exclusion does: not inverted
    wish_labels = {to_label(wish), f"종류:{canonical_cuisine(wish)}"} - DIETS if wish else set()
    hits, said = len(found & gold), len(found) + len(unlabelled)
    return {
        "id": row["id"],
        "precision": round(hits / said, 3) if said else None,
        "recall": round(hits / len(gold), 3),
        "gold": sorted(gold),
        "read": words,
        "found": sorted(found),
        "unlabelled": unlabelled,
        "missed": sorted(gold - found),
        "extra": sorted(found - gold) + [f"?{w}" for w in unlabelled],
        "exact": found == gold and not unlabelled,
        "covered": sorted(covered),
        "safe": covered == gold,
        "over_removed": len(removed - needed),
        "wish": wish,
        "inverted": sorted(gold & wish_labels),
    }


def _ratio(a: int, b: int) -> float | None:
    return round(a / b, 3) if b else None


def _mean(values: list[float]) -> float | None:
    return round(sum(values) / len(values), 3) if values else None


def reading(requests: list[dict[str, Any]]) -> dict[str, Any]:
    """The reader on every request of a set, against the gold labels."""
    rows = [_read(r) for r in requests]
    tp = sum(len(set(r["found"]) & set(r["gold"])) for r in rows)
    predicted = sum(len(r["found"]) + len(r["unlabelled"]) for r in rows)
    gold = sum(len(r["gold"]) for r in rows)
    per_label: dict[str, Counter[str]] = {}
    for r in rows:
        for g in r["gold"]:
            c = per_label.setdefault(g, Counter())
            c["n"] += 1
            c["dishes"] = sum(breaks(d, g) for d in dishes())
            c["found"] += g in r["found"]
            c["covered"] += g in r["covered"]
            c["inverted"] += g in r["inverted"]
        for e in r["extra"]:
            per_label.setdefault(e, Counter())["extra"] += 1
    no_word = sorted(
        set(LABEL_ALLERGENS) - {READER_TO_LABEL[w] for w in EXCLUSIONS} | {"메뉴:*"},
    )
    summary = {
        "n": len(rows),
        "labels": gold,
        "precision": _ratio(tp, predicted),
        "recall": _ratio(tp, gold),
        "exact": _ratio(sum(r["exact"] for r in rows), len(rows)),
        # per request, averaged (a request with nothing read has no precision: left out)
        "request_precision": _mean([r["precision"] for r in rows if r["precision"] is not None]),
        "request_recall": _mean([r["recall"] for r in rows]),
        "covered": _ratio(sum(len(r["covered"]) for r in rows), gold),
        "safe": _ratio(sum(r["safe"] for r in rows), len(rows)),
        "inverted": sum(len(r["inverted"]) for r in rows),
        "over_removed_mean": round(sum(r["over_removed"] for r in rows) / len(rows), 1),
        "labels_without_reader_word": no_word,
    }
    labels: dict[str, dict[str, Any]] = {
        k: {
            **c,
            "recall": _ratio(c["found"], c["n"]),
            "precision": _ratio(c["found"], c["found"] + c["extra"]),
        }
        for k, c in sorted(per_label.items())
    }
    return {
        "summary": summary,
        "per_label": labels,
        "rows": rows,
    }


# --- 2. end to end ----------------------------------------------------------------------------


MAX_REPLIES = 3


def _replies(row: dict[str, Any]) -> dict[str, str]:
    if "replies" in row:
        replies = dict(row["replies"])
    else:
        place, when, party = ANSWERS[row["id"]]
        replies = {"location": place, "datetime": when, "party_size": party}
    if row["id"] in BUDGETS:
        replies["budget_per_person"] = BUDGETS[row["id"]]
    for words in replies.values():
        assert words in row["request"], f"{row['id']}: {words!r} is not the request's"
    return replies


_BY_LENGTH = sorted((d.name for d in dishes()), key=len, reverse=True)
_DISH = re.compile("|".join(re.escape(n) for n in _BY_LENGTH))
_ECHO = re.compile(r"\(제외: [^)]*\)")
_RESTAURANTS = sorted({r.name for r in restaurants()}, key=len, reverse=True)


def named_dishes(answer: str) -> list[str]:
    """The table's dishes the answer names after its conditions, in order, each once (longest
    names first)."""
    text = _ECHO.sub(" ", answer.split("\n\n", 1)[-1])
    for name in _RESTAURANTS:
        text = text.replace(name, " ")
    return list(dict.fromkeys(m.group(0) for m in _DISH.finditer(text)))


def _by_name() -> dict[str, Dish]:
    return {d.name: d for d in dishes()}


async def _thread(
    row: dict[str, Any], settings: Settings, models: ModelSet, agent: Any
) -> dict[str, Any]:
    options = {"now": _now(row).isoformat()}
    ctx = AgentContext(settings, models, InMemorySaver(), options)
    thread = uuid.uuid4().hex
    replies, answered = _replies(row), set[str]()
    message, said = row["request"], [row["request"]]
    started = time.perf_counter()
    calls = errors = 0
    error_codes: list[str] = []
    slots: dict[str, Any] = {}
    while True:
        done: Any = None
        missing: list[str] = []
        async for event in stream_turn(agent, ctx, thread, message):
            if event.type == "slots":
                missing, slots = list(event.missing), dict(event.content)
            elif event.type == "error":
                errors += 1
                error_codes.append(str(event.code))
            elif event.type == "done":
                done = event
        calls += done.usage.llm_calls
        if not done.waiting:
            outcome, asked = "answered", []
            break
        if (
            not missing
            or any(m not in replies or m in answered for m in missing)
            or len(said) > MAX_REPLIES
        ):
            outcome, asked = "asked", missing
            break
        answered |= set(missing)
        message = " ".join(replies[m] for m in missing)
        said.append(message)
    answer = done.content if outcome == "answered" else ""
    table = _by_name()
    named = named_dishes(answer)
    violations = [
        {"id": row["id"], "dish": n, "label": g}
        for n in named
        for g in row["excluded"]
        if breaks(table[n], g)
    ]
    return {
        "id": row["id"],
        "excluded": row["excluded"],
        "outcome": outcome,
        "asked": asked,
        "question": done.content if outcome == "asked" else "",
        "said": said,
        "slots": slots,
        "answer": answer,
        "dishes": named,
        "violations": violations,
        "respects": not violations,
        "llm_calls": calls,
        "errors": errors,
        "error_codes": list(dict.fromkeys(error_codes)),
        "seconds": round(time.perf_counter() - started, 2),
    }


def _places(source: str) -> contextlib.AbstractContextManager[None]:
    if source == "sample":
        os.environ["DURE_TASKS__PLACE_SEARCH"] = "sample"
        get_settings.cache_clear()
        return contextlib.nullcontext()
    if source == "kakao":
        return loopback_kakao()
    raise ValueError(f"DURE_BENCH_LUNCH_PLACES: unknown source {source!r} (sample, kakao)")


def _no_model(call: Call) -> BaseException:
    return ConnectionError("no model reachable (benchmark mode none)")


async def _end_to_end(
    rows: list[dict[str, Any]], settings: Settings, models: ModelSet
) -> list[dict[str, Any]]:
    agent = get_agent("tasks")
    out: list[dict[str, Any]] = []
    for row in rows:
        try:
            r = await _thread(row, settings, models, agent)
        except asyncio.CancelledError:  # Ctrl-C: keep the requests that finished
            print(f"  interrupted at {row['id']}: {len(out)} of {len(rows)} finished", flush=True)
            break
        out.append(r)
        bad = ", ".join(f"{v['dish']}⊥{v['label']}" for v in r["violations"])
        print(
            f"  {r['id']} {r['seconds']:6.1f}s {r['outcome']:8} "
            f"{'asked ' + ','.join(r['asked']) if r['asked'] else ', '.join(r['dishes'][:6])}"
            + (f"  VIOLATES {bad}" if bad else ""),
            flush=True,
        )
    return out


def end_to_end(mode: str, rows: list[dict[str, Any]], places: str = "sample") -> dict[str, Any]:
    """Every request as a new thread of the tasks agent, with or without a model, its places
    from the sample catalogue or from a Kakao search on loopback."""
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp, _places(places):
        settings = Settings(data_dir=Path(tmp), enable_cache=False)
        if mode == "none":
            models = ModelSet(settings, ScriptedChatModel(_no_model))
        else:
            models = ModelSet(settings)
        quiet = logging.getLogger("dure")  # each no-model fallback logs a warning: counted instead
        level = quiet.level
        quiet.setLevel(logging.ERROR)
        try:
            results = asyncio.run(_end_to_end(rows, settings, models))
        finally:
            quiet.setLevel(level)
    n = len(results)
    named = [r for r in results if r["dishes"]]
    violations = [v for r in results for v in r["violations"]]
    summary = {
        "n": n,
        "of": len(rows),
        "respect": _ratio(sum(r["respects"] for r in results), n),
        "respect_named": _ratio(sum(r["respects"] for r in named), len(named)),
        "named_dish": _ratio(len(named), n),
        "answered": _ratio(sum(r["outcome"] == "answered" for r in results), n),
        "asked": _ratio(sum(r["outcome"] == "asked" for r in results), n),
        "asked_for": dict(Counter(m for r in results for m in r["asked"])),
        "violations": len(violations),
        "violated_labels": dict(Counter(v["label"] for v in violations)),
        "errors": sum(r["errors"] for r in results),
        "llm_calls": sum(r["llm_calls"] for r in results),
        "seconds": round(time.perf_counter() - started, 1),
        "p50_s": sorted(r["seconds"] for r in results)[n // 2] if n else None,
    }
    return {"summary": summary, "violations": violations, "rows": results}


def _print_reading(name: str, read: dict[str, Any]) -> None:
    s = read["summary"]
    print(
        f"[{name}] reading (rules): n={s['n']} labels={s['labels']} precision={s['precision']} "
        f"recall={s['recall']} (per request {s['request_precision']}/{s['request_recall']}) "
        f"exact={s['exact']} covered={s['covered']} safe={s['safe']} "
        f"inverted={s['inverted']} over-removed dishes/request={s['over_removed_mean']}"
    )
    print(f"  labels the reader has no word for: {', '.join(s['labels_without_reader_word'])}")
    print(
        f"  {'label':12} {'n':>3} {'found':>5} {'extra':>5} {'P':>5} {'R':>5} {'cover':>5} "
        f"{'inv':>3} {'dishes':>6}"
    )
    for label, c in read["per_label"].items():
        print(
            f"  {label:12} {c.get('n', 0):>3} {c.get('found', 0):>5} {c.get('extra', 0):>5} "
            f"{c['precision'] if c['precision'] is not None else '-':>5} "
            f"{c['recall'] if c['recall'] is not None else '-':>5} {c.get('covered', 0):>5} "
            f"{c.get('inverted', 0):>3} {c.get('dishes', '-'):>6}"
        )
    for r in read["rows"]:
        if not r["exact"]:
            print(
                f"  {r['id']} gold={r['gold']} read={r['read']} missed={r['missed']} "
                f"extra={r['extra']}" + (f" inverted={r['inverted']}" if r["inverted"] else "")
            )


def run() -> dict[str, Any]:
    """Per set (dev and blind apart): reading on the whole set, end to end in the modes asked
    for; print both tables."""
    names = [n.strip() for n in os.environ.get("DURE_BENCH_LUNCH_SET", "dev,blind").split(",")]
    unknown = [n for n in names if n and n not in SETS]
    if unknown:
        raise ValueError(f"DURE_BENCH_LUNCH_SET: unknown set(s) {unknown} ({', '.join(SETS)})")
    limit = int(os.environ.get("DURE_BENCH_LUNCH_LIMIT", "0") or 0)
    places = os.environ.get("DURE_BENCH_LUNCH_PLACES", "sample")
    modes = [m.strip() for m in os.environ.get("DURE_BENCH_LUNCH_MODEL", "none,local").split(",")]
    bad = [m for m in modes if m and m not in ("none", "local")]
    if bad:
        raise ValueError(f"DURE_BENCH_LUNCH_MODEL: unknown mode(s) {bad} (none, local)")
    result: dict[str, Any] = {}
    for name in [n for n in names if n]:
        requests = load_jsonl(SETS[name])
        read = reading(requests)
        _print_reading(name, read)
        rows = requests[: limit or None]
        result[name] = {"reading": read, "end_to_end": {}}
        for mode in [m for m in modes if m]:
            print(f"[{name}] end to end, model={mode}, places={places}:", flush=True)
            e2e = end_to_end(mode, rows, places)
            result[name]["end_to_end"][mode] = e2e
            t = e2e["summary"]
            print(
                f"[{name}]  n={t['n']} (of {t['of']}) respect={t['respect']} "
                f"(among naming a dish {t['respect_named']}) "
                f"named_dish={t['named_dish']} asked={t['asked']} {t['asked_for']} "
                f"violations={t['violations']} errors={t['errors']} llm_calls={t['llm_calls']} "
                f"{t['seconds']} s (p50 {t['p50_s']} s)"
            )
            for v in e2e["violations"]:
                print(f"  violation {v['id']}: {v['dish']} breaks {v['label']}")
    return result


if __name__ == "__main__":
    run()
