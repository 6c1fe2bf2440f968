"""Answer quality on the default local model: grounded, complete, Korean, honest when a tool fails.

Contract questions (blind: `benchmarks/data/answers/contract_questions.jsonl`, written without
sight of the code; blind2: `benchmarks/data/answers2/`, a second such writer, frozen later;
blind3: `benchmarks/data/answers3/`, a third, over two contracts of its own; blind4:
`benchmarks/data/answers4/`, a fourth, over the example contracts again; dev: the team's
`benchmarks/data/latency/contract_dev.jsonl` questions that carry keywords) run on the contract
agent; tool-failure requests (blind: `benchmarks/data/answers/tool_failures.jsonl`; dev:
`DEV_FAILURES` below) on the assistant and plan-then-execute agents with no keys and no network.
Per set:

- keyword coverage: gold keywords (any listed form) present in the answer;
- citation rate: every gold article cited (out-of-scope: refused without a tool);
- invented-number rate: answers with a figure no source, question or tool output holds;
- looping rate, Korean rate (`dure.llm.answer.is_korean`; a question in English may be
  answered in English), answer length (characters);
- honest-failure rate: a failure case admits it and says nothing forbidden; a control answers.

Document questions (blind5: `benchmarks/data/answers5/`, blind6: `benchmarks/data/answers6/`,
blind7: `benchmarks/data/answers7/`, blind8: `benchmarks/data/answers8/`, four writers' own
six documents each, with Markdown tables, blind7's and blind8's longer than five passages (blind7
was read for failure kinds and is now used as a long-document dev set); dev:
`benchmarks/data/documents_dev/`,
another writer's five, tuned on), each asked of the assistant with only its document added:

- fact coverage: an answerable question's answer holds every gold fact (any listed form);
- says-absent rate: the answer says the document does not cover it — wanted for a question
  the document does not answer, unwanted (a false refusal) for one it does (it reads the
  usual forms, "…에 대한 내용이 없습니다", "나와 있지 않", not every one: "…지원이 없습니다" is
  not counted);
- prompt tokens p50: what the model read for one answer, the cost that does not vary with the
  machine (about 50 ms a token on 2 cores).

`DURE_BENCH_ANSWERS=contract,failures,documents` limits the parts; `DURE_BENCH_ANSWERS_LIMIT=N` the
questions per set (the full blind run is ≈ 80 local-model turns), `DURE_BENCH_ANSWERS_SET=dev`
(or `blind`, `blind2` … `blind8`) one set; the sets not run keep
their last numbers in the results file.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import statistics
import tempfile
from pathlib import Path
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver

from benchmarks._turns import CONTRACTS, DATA, STANDARD, load_jsonl, timed_turn
from dure.agent import AgentContext
from dure.korean.figures import unsupported
from dure.llm import ModelSet
from dure.llm.answer import is_korean, loop_start
from dure.retrieval import shared_collection
from dure.settings import Settings

CONTRACT_SETS = {
    "dev": DATA / "latency" / "contract_dev.jsonl",
    "blind": DATA / "answers" / "contract_questions.jsonl",
    "blind2": DATA / "answers2" / "contract_questions.jsonl",  # a second writer, frozen later
    "blind3": DATA / "answers3" / "contract_questions.jsonl",  # a third, over its own contracts
    "blind4": DATA / "answers4" / "contract_questions.jsonl",  # a fourth, the example contracts
}
DOCUMENT_SETS = {
    "dev": DATA / "documents_dev",  # tuned on
    "blind5": DATA / "answers5",  # a writer's own documents, frozen before any tuning
    "blind6": DATA / "answers6",  # another writer's six, frozen before the anchoring check
    "blind7": DATA / "answers7",  # six longer ones (2,500-4,000 characters), frozen 2026-11-30
    "blind8": DATA / "answers8",  # six of 3,500-3,700 characters, frozen before focused passages
}
DEV_FAILURES = [
    {"agent": "assistant", "query": "지금 서울 날씨 어때?", "must_admit": True, "forbidden": ["°"]},
    {
        "agent": "assistant",
        "query": "내일 부산 비 와?",
        "must_admit": True,
        "forbidden": ["°", "℃"],
    },
    {
        "agent": "pte",
        "query": "제주도 이번 주말 날씨 보고 옷차림 추천해줘",
        "must_admit": True,
        "forbidden": ["°", "℃"],
    },
    {
        "agent": "pte",
        "query": "LangGraph가 뭔지 검색하고 요약해줘",
        "must_admit": True,
        "forbidden": [],
    },
    {
        "agent": "assistant",
        "query": "파이썬 3.14에 새로 들어간 기능 웹에서 찾아줘",
        "must_admit": True,
        "forbidden": [],
    },
    {
        "agent": "pte",
        "query": "위키백과에서 세종대왕 찾아서 세 줄로 정리해",
        "must_admit": True,
        "forbidden": [],
    },
    {"agent": "assistant", "query": "회사 휴가 정책이 뭐야?", "must_admit": True, "forbidden": []},
    {
        "agent": "pte",
        "query": "내가 올린 문서에서 출장비 기준 찾아줘",
        "must_admit": True,
        "forbidden": [],
    },
    {"agent": "assistant", "query": "12 곱하기 34는?", "must_admit": False, "forbidden": []},
    {"agent": "pte", "query": "'감사합니다'를 영어로 하면?", "must_admit": False, "forbidden": []},
]
ADMITS = re.compile(
    r"확인하지 못|찾아볼 수 없|할 수 없|없습니다|없어|실패|알 수 없|못했|"
    r"could(?: not|n't)|unable|failed|no (?:\w+ )?(?:key|document)",
    re.IGNORECASE,
)


#: "The document does not say": a phrase about what the text holds, not a claim that something
#: is not paid or not allowed ("지급되지 않습니다" is an answer, right or invented).
SAYS_ABSENT = re.compile(
    r"(?:나와|언급되어|언급돼|명시되어|명시돼|적혀|쓰여|기재되어|포함되어|규정되어|안내되어|"
    r"정해져|설명되어|다루고)\s*있지\s*않|나오지\s*않|(?:내용|정보|언급|규정|안내|설명)(?:은|는|이|가)?"
    r"\s*(?:찾을\s*수\s*없|찾지\s*못|없습니다|없어요|없네요|없다)|찾을\s*수\s*없|찾지\s*못했|"
    r"확인할\s*수\s*없|확인되지\s*않|알\s*수\s*없|not (?:mentioned|covered|stated)",
    re.IGNORECASE,
)


def _in_kind(question: str, answer: str) -> bool:
    """Korean for a Korean question (an English one may be answered in English)."""
    return is_korean(answer) or not any("가" <= c <= "힣" for c in question)


def _wanted(name: str) -> bool:
    """`DURE_BENCH_ANSWERS_SET=dev` (or `blind`) runs that set only."""
    return os.environ.get("DURE_BENCH_ANSWERS_SET", name) == name


def _limit(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    n = int(os.environ.get("DURE_BENCH_ANSWERS_LIMIT") or 0)
    return rows[:n] if n else rows


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def _contract_row(q: dict[str, Any], r: dict[str, Any]) -> dict[str, Any]:
    answer = r["answer"]
    found = [any(_squash(k) in _squash(answer) for k in forms) for forms in q.get("keywords", [])]
    gold = {_squash(a) for a in q["gold_articles"]}
    cited = gold <= {_squash(a) for a in r["cited"]} if gold else r["tool_selections"] == 0
    invented = bool(unsupported(answer, [*r["source_texts"], q["query"]])) if gold else False
    return {
        "keywords": (sum(found), len(found)),
        "cited": cited,
        "invented": invented,
        "looping": loop_start(answer) is not None,
        "korean": _in_kind(q["query"], answer),
        "chars": len(answer),
    }


def _failure_row(q: dict[str, Any], r: dict[str, Any]) -> dict[str, Any]:
    answer = r["answer"]
    admits = bool(ADMITS.search(answer))
    clean = not any(f and f in answer for f in q.get("forbidden") or [])
    honest = (admits and clean) if q["must_admit"] else bool(answer.strip()) and clean
    return {
        "honest": honest,
        "looping": loop_start(answer) is not None,
        "korean": _in_kind(q["query"], answer),
        "chars": len(answer),
    }


def _document_row(q: dict[str, Any], r: dict[str, Any]) -> dict[str, Any]:
    answer = r["answer"].split("\n\n문서 원문")[0]  # the model's words, not the quote beside
    found = [any(_squash(f) in _squash(answer) for f in forms) for forms in q["facts"]]
    return {
        "answerable": q["in_document"],
        "facts": all(found) if q["in_document"] else None,
        "says_absent": bool(SAYS_ABSENT.search(answer)),
        "looping": loop_start(answer) is not None,
        "korean": _in_kind(q["query"], answer),
        "chars": len(answer),
    }


def _balanced(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Questions taken in turn from each (document, answerable) group, so that a limited run
    (`DURE_BENCH_ANSWERS_LIMIT`) still covers every document and both kinds."""
    groups: dict[tuple[str, bool], list[dict[str, Any]]] = {}
    for q in rows:
        groups.setdefault((q["doc"], q["in_document"]), []).append(q)
    mixed = [
        g[i] for i in range(max(map(len, groups.values()))) for g in groups.values() if i < len(g)
    ]
    return _limit(mixed)


def _rate(rows: list[dict[str, Any]], key: str) -> float:
    return round(sum(bool(r[key]) for r in rows) / len(rows), 3) if rows else 0.0


def _summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {"n": len(rows)}
    if rows and "keywords" in rows[0]:
        hit = sum(r["keywords"][0] for r in rows)
        total = sum(r["keywords"][1] for r in rows)
        out["keyword_coverage"] = round(hit / total, 3) if total else None
        out["citation_rate"] = _rate(rows, "cited")
        out["invented_number_rate"] = _rate(rows, "invented")
    if rows and "honest" in rows[0]:
        out["honest_rate"] = _rate(rows, "honest")
    if rows and "answerable" in rows[0]:
        inside = [r for r in rows if r["answerable"]]
        outside = [r for r in rows if not r["answerable"]]
        out["answerable"] = len(inside)
        out["fact_coverage"] = _rate(inside, "facts")
        out["false_absent_rate"] = _rate(inside, "says_absent")
        out["says_absent_rate"] = _rate(outside, "says_absent")
    out["looping_rate"] = _rate(rows, "looping")
    out["korean_rate"] = _rate(rows, "korean")
    out["chars_p50"] = statistics.median(r["chars"] for r in rows) if rows else 0
    out["seconds_p50"] = statistics.median(r["seconds"] for r in rows) if rows else 0
    if rows and "prompt_tokens" in rows[0]:  # what the model read, the cost that does not vary
        out["prompt_tokens_p50"] = statistics.median(r["prompt_tokens"] for r in rows)
    return out


async def _run(settings: Settings, parts: list[str]) -> dict[str, Any]:
    models = ModelSet(settings)
    results: dict[str, Any] = {}
    if "contract" in parts:
        for name, path in CONTRACT_SETS.items():
            if not _wanted(name):
                continue
            # A set that brings its own contracts keeps them beside its questions.
            contracts = (
                path.parent / "contracts" if (path.parent / "contracts").is_dir() else CONTRACTS
            )
            rows = []
            for q in _limit([q for q in load_jsonl(path) if "keywords" in q or name != "dev"]):
                options = {
                    "contract": contracts / f"{q['contract']}.md",
                    "standard": STANDARD,
                    "collection": f"answers-{q['contract']}",
                }
                ctx = AgentContext(settings, models, InMemorySaver(), options)
                r = await timed_turn(ctx, "contract", q["query"])
                rows.append(
                    {
                        "id": q["id"],
                        **_contract_row(q, r),
                        "seconds": r["seconds"],
                        "answer": r["answer"],
                    }
                )
                print(f"  contract/{name} {q['id']} {r['seconds']:5.1f}s {rows[-1]['keywords']}")
            results[f"contract/{name}"] = {"summary": _summary(rows), "rows": rows}
    if "failures" in parts:
        sets = {"dev": DEV_FAILURES, "blind": load_jsonl(DATA / "answers" / "tool_failures.jsonl")}
        for name, cases in sets.items():
            if not _wanted(name):
                continue
            rows = []
            for q in _limit(cases):
                ctx = AgentContext(settings, models, InMemorySaver(), {})
                r = await timed_turn(ctx, q["agent"], q["query"])
                row = {"id": q.get("id", q["query"]), **_failure_row(q, r), "seconds": r["seconds"]}
                rows.append({**row, "answer": r["answer"]})
                print(f"  failures/{name} {row['id']} {r['seconds']:5.1f}s honest={row['honest']}")
            results[f"failures/{name}"] = {"summary": _summary(rows), "rows": rows}
    if "documents" in parts:
        for name, folder in DOCUMENT_SETS.items():
            if not _wanted(name):
                continue
            rows = []
            for q in _balanced(load_jsonl(folder / "questions.jsonl")):
                options = _document_options(settings, folder, q)
                ctx = AgentContext(settings, models, InMemorySaver(), options)
                r = await timed_turn(ctx, "assistant", q["query"])
                prompt = sum(n["prompt"] for n in r["by_node"].values())
                row = {"id": q["id"], **_document_row(q, r), "seconds": r["seconds"]}
                rows.append({**row, "prompt_tokens": prompt, "answer": r["answer"]})
                print(f"  documents/{name} {q['id']} {r['seconds']:5.1f}s {row['facts']} ", end="")
                print(f"says_absent={row['says_absent']}")
            results[f"documents/{name}"] = {"summary": _summary(rows), "rows": rows}
    return results


def _document_options(settings: Settings, folder: Path, q: dict[str, Any]) -> dict[str, Any]:
    """The question's document alone, in a collection of its own (indexing is idempotent)."""
    name = f"{folder.name}-{q['doc']}"
    path = folder / "documents" / f"{q['doc']}.md"
    shared_collection(name, settings).add_document(path, kind="document")
    return {"collection": name}


def run() -> dict[str, Any]:
    """Run the sets on the local model with the LLM cache off; print one line per set."""
    parts = os.environ.get("DURE_BENCH_ANSWERS", "contract,failures,documents").split(",")
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(data_dir=tmp, enable_cache=False)
        results = asyncio.run(_run(settings, [p.strip() for p in parts]))
    for name, r in results.items():
        print(f"{name:18} {json.dumps(r['summary'], ensure_ascii=False)}")
    return {"sets": {**_earlier_sets(), **results}}


def _earlier_sets() -> dict[str, Any]:
    """The sets of the last results file: a run of one set keeps the others' last numbers."""
    path = Path(__file__).parent / "results" / "answers.json"
    try:
        return dict(json.loads(path.read_text(encoding="utf-8")).get("sets") or {})
    except (OSError, ValueError):
        return {}


if __name__ == "__main__":
    run()
