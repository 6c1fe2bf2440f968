"""Learn the everyday → contract word table (`dure.retrieval.associations`) and write it.

    .venv/bin/python scripts/search-associations.py           # learn on scripts/search_adapter/
    .venv/bin/python scripts/search-associations.py --folds   # five folds by writer, check only

The data is the query adapter's (`scripts/search_adapter/`: helper-written contracts and
everyday questions with gold articles). `--folds` scores each fold's questions by BM25 over
their contract's articles, with the thesaurus, with and without a table learned on the other
writers.
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

from dure.retrieval import open_collection
from dure.retrieval.associations import (
    ASSOCIATIONS_FILE,
    MIN_CHARS,
    MIN_COUNT,
    MIN_LIFT,
    MIN_WRITERS,
    PER_WORD,
    associated_terms,
)
from dure.retrieval.keyword import BM25Index
from dure.retrieval.thesaurus import expand_query
from dure.retrieval.tokenize import analyse
from dure.settings import Settings

DATA = Path(__file__).resolve().parent / "search_adapter"


@dataclass
class Question:
    writer: str
    words: list[str]  # content morphemes, as search reads them
    thesaurus: list[str]
    articles: list[list[str]]  # the contract's articles' keyword tokens
    gold: int


def _questions() -> list[Question]:
    scratch = tempfile.TemporaryDirectory(prefix="dure-associations-")
    col = open_collection("associations", Settings(data_dir=Path(scratch.name)), store="memory")
    out = []
    for folder in sorted(p for p in DATA.iterdir() if p.is_dir()):
        contracts = {}
        for path in sorted((folder / "contracts").glob("*.md")):
            doc_id = col.add_document(path, kind="contract")
            records = [r for r in col.store.doc_records(doc_id) if r.article_no]
            contracts[path.stem] = ([r.article_no for r in records], [r.tokens for r in records])
        for line in (folder / "questions.jsonl").read_text(encoding="utf-8").splitlines():
            q = json.loads(line)
            numbers, tokens = contracts[q["doc"]]
            words, forms = analyse(q["query"])
            thesaurus = expand_query(q["query"], forms)
            out.append(Question(folder.name, words, thesaurus, tokens, numbers.index(q["gold"][0])))
    col.close()
    scratch.cleanup()
    return out


def learn(questions: list[Question]) -> dict[str, list[str]]:
    """{question word: article words}, by the rule in `dure.retrieval.associations`."""
    seen: Counter[str] = Counter()
    together: dict[str, Counter[str]] = defaultdict(Counter)
    writers: dict[tuple[str, str], set[str]] = defaultdict(set)
    base: dict[str, Counter[str]] = defaultdict(Counter)
    for q in questions:
        words = {w for w in q.words if not w.isdigit()}
        articles = [set(a) for a in q.articles]
        share = Counter(t for a in articles for t in a)
        for w in words:
            seen[w] += 1
            for t in articles[q.gold] - set(q.words):
                together[w][t] += 1
                writers[w, t].add(q.writer)
            for t, n in share.items():
                base[w][t] += n / len(articles)
    table = {}
    for w, counts in together.items():
        kept = sorted(
            (
                ((n - base[w][t]) / seen[w], t)
                for t, n in counts.items()
                if n >= MIN_COUNT
                and len(writers[w, t]) >= MIN_WRITERS
                and not any(c.isdigit() for c in t)
                and len(t) >= MIN_CHARS
            ),
            reverse=True,
        )
        terms = [t for lift, t in kept if lift >= MIN_LIFT][:PER_WORD]
        if terms:
            table[w] = terms
    return dict(sorted(table.items()))


def _hits(questions: list[Question], table: dict[str, list[str]] | None) -> tuple[int, int]:
    """(hit@1, hit@3) counts of BM25 over each question's contract, with the table or not."""
    h1 = h3 = 0
    indexes: dict[int, BM25Index] = {}
    for q in questions:
        if id(q.articles) not in indexes:  # one index per contract
            indexes[id(q.articles)] = BM25Index(q.articles)
        index = indexes[id(q.articles)]
        extra = associated_terms(q.words, table) if table is not None else []
        ranked = [i for i, _ in index.search(q.words + q.thesaurus + extra, len(q.articles))]
        rank = ranked.index(q.gold) if q.gold in ranked else len(ranked)
        h1, h3 = h1 + (rank < 1), h3 + (rank < 3)
    return h1, h3


def main() -> None:
    questions = _questions()
    if "--folds" in sys.argv:
        names = sorted({q.writer for q in questions})
        totals = {"none": [0, 0], "learned": [0, 0]}
        for k in range(5):
            held = set(names[k::5])
            test = [q for q in questions if q.writer in held]
            table = learn([q for q in questions if q.writer not in held])
            for label, t in (("none", None), ("learned", table)):
                h1, h3 = _hits(test, t)
                totals[label][0] += h1
                totals[label][1] += h3
        for label, (h1, h3) in totals.items():
            print(f"{label}: hit@1 {h1 / len(questions):.3f} hit@3 {h3 / len(questions):.3f}")
        return
    table = learn(questions)
    ASSOCIATIONS_FILE.parent.mkdir(parents=True, exist_ok=True)
    lines = (
        f"{json.dumps(w, ensure_ascii=False)}: {json.dumps(t, ensure_ascii=False)}"
        for w, t in table.items()
    )
    ASSOCIATIONS_FILE.write_text("{\n" + ",\n".join(lines) + "\n}\n", encoding="utf-8")
    print(f"{len(table)} words from {len(questions)} questions → {ASSOCIATIONS_FILE}")


if __name__ == "__main__":
    main()
