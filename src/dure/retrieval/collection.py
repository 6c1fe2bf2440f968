"""A named collection of documents and its hybrid search.

Contracts and standard contracts are indexed by article (one record per 조, plus preamble,
부칙 and appendices); other documents by heading-aware chunks. Search fuses a Kiwi-morpheme
BM25 list, a dense list and the dense list's articles by their best paragraph
(`dure.retrieval.fusion`, `dure.retrieval.paragraphs`); an article the question names by
number ("제5조") comes from the parser, first, and is never left to search.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from dure.documents import (
    Contract,
    DocumentError,
    Limits,
    LoadedDocument,
    content_hash,
    extract_article_refs,
    load_document,
    parse_contract,
)
from dure.embeddings import Embedder
from dure.errors import DureError
from dure.retrieval.adapter import query_adapter
from dure.retrieval.associations import query_terms
from dure.retrieval.fusion import fuse
from dure.retrieval.paragraphs import embed_records, paragraph_list
from dure.retrieval.records import build_records
from dure.retrieval.references import numbered_records
from dure.retrieval.statutes import only_statutes
from dure.retrieval.stores.base import Store
from dure.retrieval.types import KINDS, Hit, IndexResult, Kind, Record, StoredDoc, check_name
from dure.settings import Settings

if TYPE_CHECKING:
    from typing_extensions import TypeIs

__all__ = ["MAX_QUERY_CHARS", "SEARCH_MODES", "Collection", "SearchMode"]

SearchMode = Literal["hybrid", "keyword", "dense"]
SEARCH_MODES: tuple[SearchMode, ...] = ("hybrid", "keyword", "dense")
#: Longer queries are refused: no question is this long, and embedding one costs seconds.
MAX_QUERY_CHARS = 2000


def _is_embedder(embedder: Embedder | Callable[[], Embedder]) -> TypeIs[Embedder]:
    """An embedder itself, not a factory of one (the protocol is not checkable at runtime)."""
    return hasattr(embedder, "embed_query")


#: Reports embedding work: (what is being embedded, passages done, passages in all).
Progress = Callable[[str, int, int], None]


@dataclass
class _Prepared:
    doc: StoredDoc
    records: list[Record]
    vectors: Any
    replaces: list[str]


class Collection:
    """Documents under one name, searchable together. Open one with `open_collection`."""

    def __init__(
        self,
        name: str,
        settings: Settings,
        store: Store,
        embedder: Embedder | Callable[[], Embedder] | None = None,
    ) -> None:
        self.name = check_name(name)
        self.settings = settings
        self.store = store
        self._embedder = embedder
        self._contracts: dict[str, Contract] = {}
        self._statutes: dict[str, bool] = {}  # doc_id → is a statute (no contract thesaurus)
        #: Called while passages are embedded (the CLI shows a progress bar).
        self.progress: Progress | None = None
        self._embedder_checked = False

    # ------------------------------------------------------------ properties
    @property
    def dense(self) -> bool:
        """Whether searches use the dense list (a dense store and an embedder)."""
        return self.store.dense and self._embedder is not None

    @property
    def embedder(self) -> Embedder | None:
        """The embedder, loaded on first use."""
        # A factory (not an embedder) is called once, so the model loads only when needed.
        emb = self._embedder
        if emb is None or _is_embedder(emb):
            return emb
        loaded = self._embedder = emb()
        return loaded

    def ensure_vectors(self) -> None:
        """Re-embed the collection now if it was built with another embedder (search would do
        it on first use; the CLI calls this to show progress)."""
        if self.dense and not self._embedder_checked and self.store.count():
            self._check_embedder()

    def _check_embedder(self) -> None:
        """Vectors of two models never mix. A collection built with another embedder (say
        yesterday's 512-d USE) is re-embedded with today's on first use; one built without
        vectors does not take documents with them (or the reverse)."""
        if self._embedder_checked:
            return
        emb = self.embedder if self.dense else None
        name = emb.name if emb is not None else None
        meta = self.store.meta()
        if "embedder" not in meta or self.store.count() == 0:
            extra = {"dim": emb.dim} if emb is not None else {}
            self.store.set_meta({**meta, "embedder": name, **extra, "store": self.store.backend})
        elif meta["embedder"] != name:
            if emb is None or meta["embedder"] is None:
                built = meta["embedder"] or "벡터 없음(키워드만)"
                raise DureError(
                    f"컬렉션 '{self.name}'은 '{built}'(으)로 만들어졌습니다 "
                    f"(지금 설정: '{name or '벡터 없음'}'). 같은 설정으로 열거나 새 컬렉션을 만드세요."
                )
            self._reembed(emb, meta)
        self._embedder_checked = True

    def _reembed(self, emb: Embedder, meta: dict[str, Any]) -> None:
        """Replace every record's vector with `emb`'s (the stored texts are embedded again)."""
        records = [r for d in self.store.documents() for r in self.store.doc_records(d.doc_id)]
        label = f"'{self.name}' 다시 임베딩 ({meta['embedder']} → {emb.name})"
        progress = self.progress
        report = (lambda done, total: progress(label, done, total)) if progress else None
        vectors = embed_records(emb, records, report)
        new_meta = {
            **meta,
            "embedder": emb.name,
            "dim": int(vectors.shape[1]) if len(vectors) else emb.dim,
        }
        self.store.replace_vectors([r.id for r in records], vectors, new_meta)

    # ------------------------------------------------------------ documents
    def documents(self) -> list[StoredDoc]:
        """Indexed documents, in the order added."""
        return self.store.documents()

    def find_document(self, ref: str) -> StoredDoc | None:
        """A document by id, id prefix, file name, file stem or title (its text may be left
        out: `store.document(doc_id)` has it)."""
        exact = self.store.document(ref)
        if exact is not None:
            return exact
        docs = self.store.documents()
        for match in (
            lambda d: d.doc_id == ref,
            lambda d: d.name == ref or Path(d.name).stem == ref or d.title == ref,
            lambda d: len(ref) >= 6 and d.doc_id.startswith(ref),
        ):
            found = [d for d in docs if match(d)]
            if found:
                return found[-1]
        return None

    def remove_document(self, doc_id: str) -> bool:
        """Remove a document and its records."""
        self._contracts.pop(doc_id, None)
        return self.store.remove(doc_id)

    def get_contract(self, doc_id: str) -> Contract:
        """The parsed contract (or standard contract) `doc_id`, or `DocumentError`."""
        if doc_id not in self._contracts:
            found = self.find_document(doc_id)
            doc = self.store.document(found.doc_id) if found else None
            if doc is None:
                raise DocumentError(f"컬렉션 '{self.name}'에 문서 '{doc_id}'가 없습니다.")
            self._contracts[doc_id] = parse_contract(doc.text, doc.doc_id, title=doc.title)
        return self._contracts[doc_id]

    def add_document(
        self,
        source: str | Path | LoadedDocument,
        kind: Kind = "document",
        *,
        title: str | None = None,
        name: str | None = None,
    ) -> str:
        """Index a file (a `Path`, or a string naming an existing file) or a text; its doc_id.

        Idempotent by content hash: the same content again returns the same id without work.
        A new version of a file with the same name and kind replaces the old one. A failure
        (`DocumentError`) leaves the collection as it was.
        """
        prepared = self._prepare(source, kind, title, name)
        if isinstance(prepared, str):  # already indexed
            return prepared
        self._commit(prepared)
        return prepared.doc.doc_id

    def add_documents(
        self,
        sources: Iterable[str | Path],
        kind: Kind = "document",
        progress: Callable[[str, IndexResult], None] | None = None,
    ) -> list[IndexResult]:
        """Index several files; one failing file is reported and the others still go in."""
        results: list[IndexResult] = []
        for source in sources:
            label = str(source)
            try:
                prepared = self._prepare(source, kind, None, None)
                if isinstance(prepared, str):
                    result = IndexResult(label, "unchanged", prepared)
                else:
                    self._commit(prepared)
                    result = IndexResult(
                        label,
                        "replaced" if prepared.replaces else "added",
                        prepared.doc.doc_id,
                        len(prepared.records),
                    )
            except DureError as e:
                result = IndexResult(label, "failed", error=str(e))
            results.append(result)
            if progress:
                progress(label, result)
        return results

    def _load(self, source: str | Path | LoadedDocument) -> tuple[LoadedDocument, str]:
        if isinstance(source, LoadedDocument):
            return source, source.name or "문서"
        is_path = isinstance(source, Path) or _is_file(source)
        if is_path:
            limits = Limits(max_file_bytes=self.settings.search.max_file_mb * 1_000_000)
            loaded = load_document(Path(source), limits)
            return loaded, loaded.name
        text = str(source).strip()
        if not text:
            raise DocumentError("빈 텍스트는 색인할 수 없습니다.")
        return LoadedDocument(text, {"format": "text", "sha256": content_hash(text)}), ""

    def _prepare(
        self,
        source: str | Path | LoadedDocument,
        kind: Kind,
        title: str | None,
        name: str | None,
    ) -> _Prepared | str:
        """Load, parse, tokenise and embed — everything but writing; the doc_id if unchanged."""
        if kind not in KINDS:
            raise DureError(f"문서 종류는 {', '.join(KINDS)} 중 하나여야 합니다: {kind!r}")
        loaded, default_name = self._load(source)
        sha = loaded.metadata.get("sha256") or content_hash(loaded.text)
        doc_id = sha[:16]
        existing = self.store.document(doc_id)
        if existing is not None and existing.kind == kind:
            return doc_id
        self._check_embedder()
        name = name or default_name or f"{doc_id}.txt"
        records, doc_title, meta = build_records(
            loaded.text, doc_id, kind, title, Path(name).stem, self.settings.search
        )
        started = time.perf_counter()
        if self.dense and records:
            assert self.embedder is not None
            report = None
            if self.progress is not None:
                progress, label = self.progress, name
                report = lambda done, total: progress(label, done, total)  # noqa: E731
            vectors = embed_records(self.embedder, records, report)
        else:
            vectors = None
        meta["embed_seconds"] = round(time.perf_counter() - started, 3)
        replaces = [
            d.doc_id
            for d in self.store.documents()
            if d.doc_id != doc_id and d.name == name and d.kind == kind
        ]
        doc = StoredDoc(
            doc_id=doc_id,
            kind=kind,
            name=name,
            title=doc_title,
            sha256=sha,
            text=loaded.text,
            metadata={**{k: v for k, v in loaded.metadata.items() if k != "sha256"}, **meta},
        )
        return _Prepared(doc, records, vectors, replaces)

    def _commit(self, p: _Prepared) -> None:
        self.store.add(p.doc, p.records, p.vectors)
        self._contracts.pop(p.doc.doc_id, None)
        for old in p.replaces:
            self.remove_document(old)

    # ------------------------------------------------------------ search
    def search(
        self,
        query: str,
        top_k: int | None = None,
        kind: Kind | None = None,
        doc_id: str | None = None,
        mode: SearchMode | None = None,
        resolve_refs: bool = True,
    ) -> list[Hit]:
        """The best `top_k` records for `query`, optionally within one kind or one document.

        `mode` defaults to hybrid when the collection is dense, keyword otherwise. Articles
        the query names by number come first (`match="article_ref"`, score 1.0) unless
        `resolve_refs` is False (used to measure the search lists alone).
        """
        query = (query or "").strip()
        if len(query) > MAX_QUERY_CHARS:
            raise DureError(
                f"검색어가 너무 깁니다: {len(query):,}자 (최대 {MAX_QUERY_CHARS:,}자). 핵심만 적어 주세요."
            )
        k = top_k or self.settings.search.top_k
        if not query or k <= 0:
            return []
        mode = mode or ("hybrid" if self.dense else "keyword")
        if mode != "keyword" and not self.dense:
            raise DureError(f"컬렉션 '{self.name}'은 벡터 없이(키워드만) 만들어졌습니다.")
        if mode != "keyword":
            self.ensure_vectors()
        refs = extract_article_refs(query) if resolve_refs and kind != "document" else []
        ranked = self._ranked(query, k + len(refs), kind, doc_id, mode)
        named = numbered_records(self.store, query, refs, kind, doc_id, [r for r, _, _ in ranked])
        hits = [r.hit(1.0, "article_ref") for r in named]
        seen = {h.id for h in hits}
        records = {r.id: r for r in self.store.records([i for i, _, _ in ranked if i not in seen])}
        for rid, score, ranks in ranked:
            if rid in records and len(hits) < k:
                hits.append(records[rid].hit(score, mode, ranks))
        return hits[:k]

    def ranked_lists(
        self,
        query: str,
        depth: int,
        kind: Kind | None = None,
        doc_id: str | None = None,
        mode: SearchMode = "hybrid",
        thesaurus: bool | None = None,
    ) -> dict[str, list[tuple[str, float]]]:
        """The lists fusion starts from: `keyword` (Kiwi BM25) and/or `dense` (cosine), each
        (record id, score) best first, `depth` long, and in hybrid mode `paragraph` (the dense
        list's articles by their best paragraph, `dure.retrieval.paragraphs`). `thesaurus`
        defaults to the setting; False searches the words as said, without the learned
        associations (`dure.retrieval.associations`) either. Neither applies when every document
        searched is a statute (`dure.retrieval.statutes`), and the query adapter
        (`dure.retrieval.adapter`) is then the statute map."""
        s = self.settings.search
        statutes = only_statutes(self.store, kind, doc_id, self._statutes)
        tokens, text = query_terms(
            query,
            not statutes and (s.thesaurus if thesaurus is None else thesaurus),
            not statutes and s.associations and thesaurus is not False,
        )
        lists: dict[str, list[tuple[str, float]]] = {}
        if mode in ("hybrid", "keyword"):
            lists["keyword"] = self.store.keyword_search(tokens, depth, kind, doc_id)
        if mode in ("hybrid", "dense"):
            assert self.embedder is not None
            vector = self.embedder.embed_query(text)
            adapter = query_adapter(self.embedder.name, "statute" if statutes else "contract")
            if adapter is not None and s.query_adapter:
                vector = adapter(vector)
            lists["dense"] = self.store.vector_search(vector, depth, kind, doc_id)
            if mode == "hybrid" and s.paragraph_weight > 0:
                found = self.store.records([rid for rid, _ in lists["dense"]])
                lists["paragraph"] = paragraph_list(self.embedder, found, vector)
        return lists

    def _ranked(
        self, query: str, k: int, kind: Kind | None, doc_id: str | None, mode: SearchMode
    ) -> list[tuple[str, float, dict[str, int]]]:
        lists = self.ranked_lists(query, max(4 * k, 40), kind, doc_id, mode)
        ranks = {
            name: {rid: r for r, (rid, _) in enumerate(found, start=1)}
            for name, found in lists.items()
        }
        if mode != "hybrid":
            ((name, found),) = lists.items()  # the one list, named as the mode
            return [(rid, score, {name: r}) for r, (rid, score) in enumerate(found, start=1)][:k]
        fused = fuse(lists, self.settings.search)
        return [
            (rid, score, {n: ranks[n][rid] for n in ranks if rid in ranks[n]})
            for rid, score in fused[:k]
        ]

    def close(self) -> None:
        """Release the store."""
        self.store.close()


def _is_file(text: str) -> bool:
    """Whether a string names an existing file (a long one-line text is not a path)."""
    if "\n" in text or len(text.encode()) > 1024:
        return False
    try:
        return Path(text).is_file()
    except OSError:  # e.g. a name too long for the file system
        return False
