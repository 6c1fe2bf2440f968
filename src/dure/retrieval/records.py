"""What a document becomes in the index: one record per article, or heading-aware chunks."""

from __future__ import annotations

from typing import Any

from dure.documents import chunk_text, parse_contract
from dure.retrieval.tokenize import kiwi_tokens
from dure.retrieval.types import Kind, Record
from dure.settings import SearchSettings

__all__ = ["build_records"]


def build_records(
    text: str,
    doc_id: str,
    kind: Kind,
    title: str | None,
    fallback_title: str,
    search: SearchSettings,
) -> tuple[list[Record], str, dict[str, Any]]:
    """(records, document title, metadata) for one document.

    Contracts and standard contracts give one record per article (`<doc_id>:제5조`), plus the
    preamble (전문), 부칙 articles and appendices; a contract without statute-style articles,
    and any other document, gives chunks (`<doc_id>:#3`) under their headings. The title is
    `title` if given, else a contract's own title line, else `fallback_title`.
    """
    out: list[Record] = []
    doc_title = title or fallback_title

    def add(no: str | None, art_title: str | None, body: str, key: str) -> None:
        out.append(
            Record(
                id=f"{doc_id}:{key}",
                doc_id=doc_id,
                kind=kind,
                doc=doc_title,
                article_no=no,
                article_title=art_title,
                text=body,
                position=len(out),
                tokens=kiwi_tokens(body),
            )
        )

    if kind in ("contract", "standard"):
        contract = parse_contract(text, doc_id, title=title)
        if contract.articles:
            doc_title = contract.title or fallback_title
            if contract.preamble:
                add(None, "전문", contract.preamble, "전문")
            for art in contract.articles:
                add(art.no, art.title, art.text, art.no)
            for art in contract.supplementary:
                add(f"부칙 {art.no}", art.title, art.text, f"부칙{art.no}")
            for i, app in enumerate(contract.appendices, start=1):
                label = f"{app.label} {app.title or ''}".strip()
                add(None, label, f"{label}\n{app.text}".strip(), f"별첨{i}")
            return out, doc_title, {"articles": len(contract.articles)}
    for chunk in chunk_text(text, search.chunk_tokens, search.chunk_overlap):
        body = f"{chunk.heading}\n{chunk.text}" if chunk.heading else chunk.text
        add(None, chunk.heading, body, f"#{chunk.index}")
    return out, doc_title, {"chunks": len(out)}
