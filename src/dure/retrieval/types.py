"""The data a collection holds and returns: documents, records (articles or chunks), hits."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from dure.errors import DureError
from dure.sources import Source

Kind = Literal["contract", "standard", "document"]
KINDS: tuple[Kind, ...] = ("contract", "standard", "document")
#: Whose wording a query adapter (`dure.retrieval.adapter`) was trained on: a contract's, or a
#: statute's for a search where every document is one (`dure.retrieval.statutes`).
Domain = Literal["contract", "statute"]
#: Where documents go when no collection is named: contracts and standard contracts for the
#: contract agent, everything else for the assistant's document search.
CONTRACTS_COLLECTION = "contracts"
DOCUMENTS_COLLECTION = "documents"


def default_collection(kind: str) -> str:
    """The collection a document of `kind` is indexed into when none is named."""
    return DOCUMENTS_COLLECTION if kind == "document" else CONTRACTS_COLLECTION


_NAME = re.compile(r"^[\w가-힣][\w가-힣.\-]{0,63}$")


def check_name(name: str) -> str:
    """A collection name: letters (Hangul too), digits, `_`, `-`, `.`; at most 64 characters."""
    if not _NAME.match(name or ""):
        raise DureError(f"컬렉션 이름이 올바르지 않습니다: {name!r} (글자·숫자·_·-·. 로 64자 이내)")
    return name


@dataclass
class IndexResult:
    """What happened to one file in `Collection.add_documents`."""

    source: str
    status: Literal["added", "unchanged", "replaced", "failed"]
    doc_id: str | None = None
    records: int = 0
    error: str | None = None


#: How a hit was found: an explicit article number, or a search list.
Match = Literal["article_ref", "hybrid", "keyword", "dense"]


@dataclass
class StoredDoc:
    """One indexed document: its id (content hash), kind, names and full text."""

    doc_id: str
    kind: Kind
    name: str
    title: str
    sha256: str
    text: str
    metadata: dict[str, Any] = field(default_factory=dict)
    records: int = 0

    def info(self) -> dict[str, Any]:
        """Everything but the text (for listings)."""
        d = asdict(self)
        d.pop("text")
        return d


@dataclass
class Record:
    """What search ranks: one contract article (or preamble/appendix), or one document chunk.

    `id` is stable: `<doc_id>:<article_no>` for articles, `<doc_id>:#<n>` otherwise.
    `tokens` are the Kiwi morphemes the keyword index uses.
    """

    id: str
    doc_id: str
    kind: Kind
    doc: str
    article_no: str | None
    article_title: str | None
    text: str
    position: int
    tokens: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """Plain data (for persistence)."""
        return asdict(self)

    def hit(self, score: float, match: Match, ranks: dict[str, int] | None = None) -> Hit:
        """This record as a search result."""
        return Hit(
            doc=self.doc,
            doc_id=self.doc_id,
            kind=self.kind,
            article_no=self.article_no,
            article_title=self.article_title,
            score=score,
            text=self.text,
            id=self.id,
            match=match,
            ranks=ranks or {},
        )


@dataclass
class Hit:
    """A search result: where it is (doc, article) and how well it matched.

    `score` is the fused score (weighted RRF) for hybrid search, the list's own score for a
    single list, and 1.0 for an article named explicitly in the query (`match="article_ref"`).
    """

    doc: str
    doc_id: str
    kind: Kind
    article_no: str | None
    article_title: str | None
    score: float
    text: str
    id: str = ""
    match: Match = "hybrid"
    ranks: dict[str, int] = field(default_factory=dict)

    def to_source(self) -> Source:
        """The hit as a citation."""
        return Source(
            doc=self.doc,
            kind=self.kind,
            article_no=self.article_no,
            article_title=self.article_title,
            text=self.text,
            score=self.score,
        )

    def to_json(self) -> dict[str, Any]:
        """What `dure search --json` prints for a hit."""
        return {
            "doc": self.doc,
            "doc_id": self.doc_id,
            "kind": self.kind,
            "article_no": self.article_no,
            "article_title": self.article_title,
            "score": round(self.score, 6),
            "text": self.text,
            "match": self.match,
        }

    @property
    def label(self) -> str:
        """`문서 제5조 (목적)`."""
        return self.to_source().label()
