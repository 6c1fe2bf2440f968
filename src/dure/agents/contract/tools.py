"""The contract agent's four tools over a contract library, bound to one thread's documents.

`ContractLibrary` is the little the tools need from the search layer (a
`dure.retrieval` collection satisfies it; tests pass an in-memory one). `build_registry`
binds the tools to the thread's contract and optional standard contract, so the model only
ever chooses *what* to look up, never *which* document.

Every tool returns a `ToolResult` whose `sources` are the articles it read and whose `data`
lists them (`kind`, `article_no`, `title`, `references`) for the executors' bookkeeping.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel, Field

from dure.documents.contract import Article, Contract
from dure.korean.particles import particle
from dure.retrieval.types import Hit, Kind
from dure.sources import Source, SourceKind
from dure.tools import Tool, ToolRegistry, ToolResult

HYBRID_SEARCH = "hybrid_search"
GET_ARTICLE_BY_INDEX = "get_article_by_index"
GET_ARTICLE_BY_TITLE = "get_article_by_title"
LOOKUP_STANDARD_CONTRACT = "lookup_standard_contract"

#: An article's text in a tool result is cut here (the answer prompt has a budget too).
MAX_ARTICLE_CHARS = 1500
#: A source's snippet (what the `sources` event and the UI show).
MAX_SNIPPET_CHARS = 300
STANDARD_LABEL = "표준계약서"


class ContractLibrary(Protocol):
    """What the contract agent needs from the search layer."""

    def add_document(self, source: Path | str, kind: Kind = "document") -> str:
        """Index a document (idempotent by content hash); its `doc_id`."""
        ...

    def get_contract(self, doc_id: str) -> Contract:
        """The parsed contract `doc_id`."""
        ...

    def search(
        self,
        query: str,
        top_k: int | None = None,
        kind: Kind | None = None,
        doc_id: str | None = None,
    ) -> Sequence[Hit]:
        """Hybrid search, best first."""
        ...


class HybridSearchArgs(BaseModel):
    """Arguments of `hybrid_search`."""

    query: str = Field(description="찾을 내용 (계약서에 쓰일 법한 용어로 쓰면 더 잘 찾습니다)")
    top_k: int = Field(3, ge=1, le=10, description="가져올 결과 수")


class ArticleIndexArgs(BaseModel):
    """Arguments of `get_article_by_index`."""

    article_no: str = Field(description='조 번호. 예: "제5조", "5조", "제5조의2"')


class ArticleTitleArgs(BaseModel):
    """Arguments of `get_article_by_title`."""

    title: str = Field(description='조 제목. 예: "계약의 해지", "손해배상"')


class StandardArgs(BaseModel):
    """Arguments of `lookup_standard_contract`."""

    query: str = Field(description="표준계약서에서 찾을 내용")
    article_no: str | None = Field(None, description="표준계약서의 조 번호 (알 때만)")


def doc_name(contract: Contract) -> str:
    """How a contract is named in sources: its title, else its id."""
    return contract.title or contract.doc_id


def table_of_contents(contract: Contract) -> str:
    """`제1조 (목적)` lines, one per article — lets the planner pick articles by number."""
    return "\n".join(a.heading for a in contract.articles)


def article_label(kind: str, article_no: str) -> str:
    """How an explored article is named in the state: `제5조` or `표준계약서 제5조`."""
    return article_no if kind == "contract" else f"{STANDARD_LABEL} {article_no}"


def _article_data(contract: Contract, article: Article, kind: SourceKind) -> dict[str, Any]:
    return {
        "kind": kind,
        "doc": doc_name(contract),
        "article_no": article.no,
        "title": article.title,
        "references": article.references,
        "text": article.text[:MAX_ARTICLE_CHARS],
    }


def _article_result(
    contract: Contract, articles: list[Article], kind: SourceKind, note: str = ""
) -> ToolResult:
    parts = [note] if note else []
    prefix = "" if kind == "contract" else f"[{STANDARD_LABEL}] "
    parts += [prefix + a.text[:MAX_ARTICLE_CHARS] for a in articles]
    return ToolResult(
        ok=True,
        content="\n\n".join(parts),
        sources=[
            Source(
                doc=doc_name(contract),
                kind=kind,
                article_no=a.no,
                article_title=a.title,
                text=a.body[:MAX_SNIPPET_CHARS],
            )
            for a in articles
        ],
        data={"articles": [_article_data(contract, a, kind) for a in articles]},
    )


def _hits_result(library: ContractLibrary, hits: Sequence[Hit], kind: SourceKind) -> ToolResult:
    """Search hits as one result, one entry per article (chunks of one article merged)."""
    seen: dict[tuple[str, str | None], Hit] = {}
    for h in hits:
        seen.setdefault((h.doc_id, h.article_no), h)
    parts: list[str] = []
    sources: list[Source] = []
    articles: list[dict[str, Any]] = []
    contracts: dict[str, Contract | None] = {}
    for (doc_id, no), h in seen.items():
        if doc_id not in contracts:
            try:
                contracts[doc_id] = library.get_contract(doc_id)
            except Exception:  # a hit on a plain document has no articles to expand
                contracts[doc_id] = None
        contract = contracts[doc_id]
        article = contract.get(no) if contract is not None and no else None
        text = article.text if article is not None else h.text
        prefix = "" if kind == "contract" else f"[{STANDARD_LABEL}] "
        parts.append(prefix + text[:MAX_ARTICLE_CHARS])
        sources.append(
            Source(
                doc=h.doc,
                kind=kind,
                article_no=no,
                article_title=h.article_title,
                text=(article.body if article is not None else h.text)[:MAX_SNIPPET_CHARS],
                score=h.score,
            )
        )
        if article is not None and contract is not None:
            articles.append(_article_data(contract, article, kind))
        else:
            articles.append(
                {
                    "kind": kind,
                    "doc": h.doc,
                    "article_no": no,
                    "title": h.article_title,
                    "references": [],
                    "text": h.text[:MAX_ARTICLE_CHARS],
                }
            )
    return ToolResult(
        ok=True, content="\n\n".join(parts), sources=sources, data={"articles": articles}
    )


def build_registry(
    library: ContractLibrary,
    contract_id: str | None,
    standard_contract_id: str | None = None,
    timeout: float = 15.0,
) -> ToolRegistry:
    """The four tools, bound to one thread's contract (and standard contract, if any)."""

    def contract() -> Contract:
        if not contract_id:
            raise LookupError("이 대화에 연결된 계약서가 없습니다.")
        return library.get_contract(contract_id)

    def hybrid_search(query: str, top_k: int = 3) -> ToolResult:
        hits = library.search(query, top_k=top_k, kind="contract", doc_id=contract_id)
        if not hits:
            return ToolResult(ok=True, content=f"'{query}'에 관련된 조항을 찾지 못했습니다.")
        return _hits_result(library, hits, "contract")

    def get_article_by_index(article_no: str) -> ToolResult:
        c = contract()
        article = c.find_by_number(article_no)
        if article is None:
            return ToolResult(
                ok=True,
                content=f"계약서에 {particle(article_no, '이', '가')} 없습니다. "
                f"있는 조항:\n{table_of_contents(c)}",
            )
        return _article_result(c, [article], "contract")

    def get_article_by_title(title: str) -> ToolResult:
        c = contract()
        found = c.find_by_title(title)
        if not found:
            return ToolResult(
                ok=True,
                content=f"제목이 '{title}'인 조항이 없습니다. 있는 조항:\n{table_of_contents(c)}",
            )
        return _article_result(c, [a for a, _ in found], "contract")

    def lookup_standard_contract(query: str, article_no: str | None = None) -> ToolResult:
        if standard_contract_id and article_no:
            std = library.get_contract(standard_contract_id)
            article = std.find_by_number(article_no)
            if article is not None:
                return _article_result(std, [article], "standard")
        hits = library.search(query, top_k=3, kind="standard", doc_id=standard_contract_id)
        if not hits:
            if not standard_contract_id:
                return ToolResult.fail(
                    "비교할 표준계약서가 없습니다. --standard 로 표준계약서를 지정해 주세요."
                )
            return ToolResult(
                ok=True, content=f"표준계약서에서 '{query}' 관련 조항을 찾지 못했습니다."
            )
        return _hits_result(library, hits, "standard")

    return ToolRegistry(
        [
            Tool(
                HYBRID_SEARCH,
                "사용자 계약서에서 질문과 관련된 조항을 키워드·의미 검색으로 찾습니다. "
                "조 번호나 제목을 모를 때 씁니다.",
                HybridSearchArgs,
                hybrid_search,
                timeout,
            ),
            Tool(
                GET_ARTICLE_BY_INDEX,
                "사용자 계약서의 조항을 조 번호로 정확히 가져옵니다 (예: 제5조).",
                ArticleIndexArgs,
                get_article_by_index,
                timeout,
            ),
            Tool(
                GET_ARTICLE_BY_TITLE,
                "사용자 계약서의 조항을 조 제목으로 가져옵니다 (예: 계약의 해지).",
                ArticleTitleArgs,
                get_article_by_title,
                timeout,
            ),
            Tool(
                LOOKUP_STANDARD_CONTRACT,
                "표준계약서에서 관련 조항을 찾아 사용자 계약서와 비교할 수 있게 합니다.",
                StandardArgs,
                lookup_standard_contract,
                timeout,
            ),
        ]
    )
