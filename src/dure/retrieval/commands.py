"""CLI: `dure index`, `dure search`, `dure collections`."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

from dure.batch import each_row, print_json
from dure.errors import DureError

if TYPE_CHECKING:
    from dure.retrieval import StoreName

out = Console(highlight=False, soft_wrap=True)
err = Console(stderr=True, highlight=False)

CollectionArg = Annotated[str, typer.Option("--collection", "-c", help="컬렉션 이름")]
StoreOpt = Annotated[
    str | None, typer.Option("--store", help="저장소: memory | faiss | pgvector (기본: 설정값)")
]


class _LazyBar:
    """A Rich progress bar for embedding work that appears only once it has run for a second
    (e5 costs ≈ 0.1 s a passage on one core; cached passages cost nothing)."""

    def __init__(self, after_s: float = 1.0) -> None:
        self._start = time.monotonic()
        self._after = after_s
        self._bar: Any = None
        self._tasks: dict[str, Any] = {}

    def __call__(self, label: str, done: int, total: int) -> None:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
        )

        if self._bar is None:
            if time.monotonic() - self._start < self._after:
                return
            self._bar = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeRemainingColumn(),
                console=err,
                transient=True,
            )
            self._bar.start()
        if label not in self._tasks:
            self._tasks[label] = self._bar.add_task(f"임베딩 {label}", total=total)
        self._bar.update(self._tasks[label], completed=done, total=total)

    def __enter__(self) -> _LazyBar:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.stop()


def index(
    files: Annotated[
        list[Path], typer.Argument(help="색인할 파일 (.txt .md .pdf .docx .hwp .hwpx)")
    ],
    collection: CollectionArg,
    kind: Annotated[
        str, typer.Option("--kind", "-k", help="contract | standard | document")
    ] = "document",
    store: StoreOpt = None,
) -> None:
    """파일을 컬렉션에 색인합니다 (내용 해시로 중복 색인·임베딩하지 않음)."""
    from dure.retrieval import KINDS, open_collection
    from dure.settings import get_settings

    if kind not in KINDS:
        raise DureError(f"--kind는 {', '.join(KINDS)} 중 하나여야 합니다: {kind!r}")
    col = open_collection(collection, get_settings(), store=_store(store))
    labels = {"added": "추가", "unchanged": "변경 없음", "replaced": "새 버전으로 교체"}
    failed = 0

    def report(label: str, result: Any) -> None:
        nonlocal failed
        if result.status == "failed":
            failed += 1
            err.print(f"[red]✗[/] {result.error}")
        else:
            count = f", {result.records}개 항목" if result.records else ""
            err.print(f"[green]✓[/] {label} — {labels[result.status]} ({result.doc_id}{count})")

    with _LazyBar() as bar:
        col.progress = bar
        col.add_documents(files, kind=kind, progress=report)
    docs = col.documents()
    out.print(f"컬렉션 '{collection}': 문서 {len(docs)}개, 검색 항목 {col.store.count()}개")
    col.close()
    if failed:
        raise typer.Exit(1)


def search(
    collection: CollectionArg,
    query: Annotated[str | None, typer.Argument(help="검색어")] = None,
    top_k: Annotated[int | None, typer.Option("--top-k", "-n", help="결과 수")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="JSON으로 출력")] = False,
    queries: Annotated[
        Path | None,
        typer.Option("--queries", help='질의 파일(JSONL: {"id","query"[,"doc","kind"]})'),
    ] = None,
    kind: Annotated[str | None, typer.Option("--kind", help="종류로 제한")] = None,
    doc: Annotated[str | None, typer.Option("--doc", help="문서(ID·파일 이름)로 제한")] = None,
    mode: Annotated[
        str | None, typer.Option("--mode", help="hybrid | keyword | dense (기본: 자동)")
    ] = None,
    store: StoreOpt = None,
) -> None:
    """컬렉션을 검색합니다 (하이브리드: Kiwi BM25 + 임베딩 + 문단, 점수 융합 — 설정 search.fusion)."""
    from dure.retrieval import KINDS, list_collections, open_collection
    from dure.retrieval.collection import SEARCH_MODES
    from dure.settings import get_settings

    if (query is None) == (queries is None):
        raise DureError("검색어 또는 --queries 파일 중 하나를 주세요.")
    if kind is not None and kind not in KINDS:
        raise DureError(f"--kind는 {', '.join(KINDS)} 중 하나여야 합니다: {kind!r}")
    if mode is not None and mode not in SEARCH_MODES:
        raise DureError(f"--mode는 hybrid, keyword, dense 중 하나여야 합니다: {mode!r}")
    col = open_collection(collection, get_settings(), store=_store(store))
    with _LazyBar() as bar:  # a collection built with another embedder is re-embedded first
        col.progress = bar
        col.ensure_vectors()
    if not col.documents():
        known = [c.name for c in list_collections(get_settings(), store=_store(store))]
        if collection not in known:
            names = ", ".join(known) or "없음"
            raise DureError(f"컬렉션 '{collection}'이 없습니다 (있는 컬렉션: {names}).")
        raise DureError(f"컬렉션 '{collection}'이 비어 있습니다. 먼저 `dure index`로 색인하세요.")

    def run(q: str, doc_ref: str | None, kind_: Any, k: int | None) -> list[Any]:
        if not q.strip():
            raise DureError("검색어가 비어 있습니다.")
        doc_id = None
        if doc_ref:
            found = col.find_document(doc_ref)
            if found is None:
                raise DureError(f"컬렉션 '{collection}'에 문서 '{doc_ref}'가 없습니다.")
            doc_id = found.doc_id
        return col.search(q, top_k=k or top_k, kind=kind_, doc_id=doc_id, mode=mode)

    if queries is not None:

        def handle(item: dict[str, Any]) -> dict[str, Any]:
            if not isinstance(item.get("query"), str):
                raise DureError("'query' 문자열이 없습니다.")
            found = run(item["query"], item.get("doc"), item.get("kind", kind), item.get("top_k"))
            return {"query": item["query"], "hits": found}

        # A bad line or question is reported on its own line; the others still run.
        for row in each_row(queries, handle):
            if "error" in row and as_json:
                print_json({"id": row["id"], "hits": [], "error": row["error"]})
            elif "error" in row:
                err.print(f"[red]✗[/] {row['id']}: {row['error']}")
            elif as_json:
                print_json({"id": row["id"], "hits": [h.to_json() for h in row["hits"]]})
            else:
                out.print(f"[bold]{row['id']}[/] {row['query']}")
                _print_hits(row["hits"])
        return
    hits = run(query or "", doc, kind, None)
    if as_json:
        print(json.dumps([h.to_json() for h in hits], ensure_ascii=False, indent=1))
    else:
        _print_hits(hits)
        if not hits:
            out.print("[dim]결과가 없습니다.[/]")


def _store(store: str | None) -> StoreName | None:
    from dure.retrieval import store_name

    return store_name(store) if store else None


def _print_hits(hits: list[Any]) -> None:
    for i, h in enumerate(hits, start=1):
        where = " ".join(
            x for x in (h.article_no, f"({h.article_title})" if h.article_title else None) if x
        )
        snippet = " ".join(h.text.split())[:160]
        out.print(f"{i}. [bold]{h.doc}[/] {where}  [dim]점수 {h.score:.4f} · {h.match}[/]")
        out.print(f"   {snippet}")


def collections(store: StoreOpt = None) -> None:
    """컬렉션 목록 (문서 수, 검색 항목 수)."""
    from dure.retrieval import list_collections
    from dure.settings import get_settings

    found = list_collections(get_settings(), store=_store(store))
    if not found:
        out.print("[dim]컬렉션이 없습니다. `dure index FILE --collection 이름`으로 만드세요.[/]")
    for c in found:  # tab-separated, as other tools read it
        print(f"{c.name}\t{c.store}\t문서 {c.documents}개\t항목 {c.records}개")


def register(app: typer.Typer) -> None:
    """Add `index`, `search` and `collections` to the `dure` CLI."""
    app.command()(index)
    app.command()(search)
    app.command()(collections)
