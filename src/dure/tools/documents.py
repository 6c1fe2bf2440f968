"""The user's own documents, for every agent that searches them: which collection a turn
searches, the search itself, and the `search_documents` tool a plan may name.

A turn searches the collection its options name, else the one in settings, else the
documents its owner added (`dure documents add --kind document`; the server passes the key's
own collection as `documents_collection`) when there are any. With none, the tool fails with
`dure.honest.NO_DOCUMENTS`, so the answer says no document is registered and how to add one.
"""

from __future__ import annotations

import asyncio
from typing import Any

from pydantic import BaseModel, Field

from dure import honest
from dure.focus import focus
from dure.settings import Settings
from dure.sources import Source, unique_sources
from dure.tools.base import Tool, ToolResult
from dure.untrusted import as_data


def searched_collection(settings: Settings, options: dict[str, Any]) -> str | None:
    """The collection a turn searches, or None when there is nothing to search.

    Blocking (it may look at the store): call it off the event loop."""
    named = options.get("collection") or settings.assistant.collection
    if named:
        return str(named)
    from dure.retrieval import has_documents
    from dure.retrieval.types import DOCUMENTS_COLLECTION

    added = str(options.get("documents_collection") or DOCUMENTS_COLLECTION)
    return added if has_documents(added, settings) else None


async def search_collection(name: str, question: str, settings: Settings) -> list[Source]:
    """The top `search.top_k` passages of collection `name` for `question`."""
    from dure.retrieval import MAX_QUERY_CHARS, open_collection

    collection = await asyncio.to_thread(open_collection, name, settings)
    try:  # a pasted text is searched by its beginning
        hits = await asyncio.to_thread(
            collection.search, question[:MAX_QUERY_CHARS], settings.search.top_k
        )
    finally:
        collection.close()  # a pgvector collection holds a connection
    return unique_sources([h.to_source() for h in hits])


def format_passages(sources: list[Source]) -> str:
    """Passages, numbered, each marked as data under its label (`dure.untrusted`).

    The label is written once, and a chunk's opening heading path is left out (`Source.body`),
    as the label holds it: on the local model every prompt token costs about 50 ms (20 tokens/s
    on 2 cores), and the label written three times was a third of five passages' tokens
    (1,040 → 774 on a dev question).
    """
    return "\n\n".join(f"[{i}] {as_data(s.body(), s.label())}" for i, s in enumerate(sources, 1))


class DocumentQuery(BaseModel):
    """Arguments of `search_documents`."""

    query: str = Field(description="등록된 문서에서 찾을 내용", max_length=500)


def documents_tool(settings: Settings, options: dict[str, Any]) -> Tool:
    """`search_documents` over the turn's collection (see `searched_collection`)."""

    async def search_documents(query: str) -> ToolResult:
        name = await asyncio.to_thread(searched_collection, settings, options)
        if name is None:
            return ToolResult.fail(honest.NO_DOCUMENTS)
        sources = await search_collection(name, query, settings)
        if not sources:
            return ToolResult.fail(f"등록된 문서에서 '{query[:80]}'에 관한 내용을 찾지 못했습니다.")
        near = await asyncio.to_thread(focus, query, sources, settings)
        return ToolResult(ok=True, content=format_passages(near), sources=sources)

    return Tool(
        name="search_documents",
        description="사용자가 등록한 문서(회사 규정, 매뉴얼, 보고서 등)에서 관련 내용을 찾습니다.",
        args_schema=DocumentQuery,
        func=search_documents,
        timeout=60.0,  # the first search of a process loads the embedder
    )
