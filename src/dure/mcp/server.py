"""Dure as an MCP server (the official SDK's FastMCP): the same turns, threads, documents and
search as the HTTP API, for one owner per request.

Tools:
- `ask_<agent>` for every agent: one turn in a thread (a new one unless `thread_id` is given);
  the answer, its cited sources and the thread id come back. A question the agent asks (the
  tasks agent's missing details, an approval) is the answer, with `waiting: true`: the reply
  goes in the next call on the same thread.
- `search`: hybrid search over one of the owner's collections, each hit with its article.
- `documents_add`: a document from its content and file name (never a path on the server).

Resources: `dure://documents/{id}` (a document's text) and, for contracts and standards,
`dure://documents/{id}/articles/{no}` (one article); both listed for the owner.

`Door` says whose they are: over stdio the local owner the CLI uses, over HTTP the API key's
owner (`dure.mcp.http`). Turns run through `dure.server.turns.Turns`, documents go through
`dure.server.documents`, exactly as the HTTP routes run and store them.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import inspect
import io
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from io import TextIOWrapper
from typing import Annotated, Any, BinaryIO
from urllib.parse import quote, unquote

import anyio
from fastapi import HTTPException
from mcp.server.fastmcp import Context, FastMCP
from mcp.server.fastmcp.exceptions import ToolError
from mcp.server.stdio import stdio_server
from mcp.server.transport_security import TransportSecuritySettings
from mcp.types import CallToolResult, Resource, TextContent, ToolAnnotations
from pydantic import Field

from dure.agents import agent_names, get_agent
from dure.documents import load_document
from dure.errors import DureError
from dure.events import Done, Event, SourcesEvent, Token
from dure.retrieval.types import default_collection
from dure.server.documents import (
    DOC_KINDS,
    articles_of,
    check_options,
    collection_for,
    save_upload,
)
from dure.server.routes.threads import check_message
from dure.server.store import Thread
from dure.server.turns import Turns
from dure.sources import Source

INSTRUCTIONS = (
    "두레(Dure): 한국어 에이전트. ask_contract로 계약서에 묻고(출처 조항 포함), search로 "
    "컬렉션을 검색하고, documents_add로 문서를 등록합니다. 대화를 이으려면 thread_id를 넘기세요."
)
#: Arguments of an agent tool beyond the message and thread, by agent (the others take none).
AGENT_OPTIONS: dict[str, tuple[str, ...]] = {
    "contract": ("contract", "standard", "collection"),
    "assistant": ("collection",),
}
READ_ONLY = ToolAnnotations(readOnlyHint=True, openWorldHint=False)


@dataclass(frozen=True)
class Door:
    """Whose threads and documents a request works on, and the turn runner it uses."""

    turns: Turns
    owner: str


Resolve = Callable[[Context], Door]
#: Hears a turn's steps as they happen: (step number, one line).
Progress = Callable[[int, str], Awaitable[None]]

Message = Annotated[str, Field(description="사용자 메시지 (질문이나 답)")]
ThreadId = Annotated[
    str | None, Field(description="이어 말할 대화 ID (앞선 답의 thread_id; 비우면 새 대화)")
]
ContractId = Annotated[str | None, Field(description="계약서 문서 ID (documents_add의 id)")]
StandardId = Annotated[str | None, Field(description="비교할 표준계약서 문서 ID")]
CollectionName = Annotated[str | None, Field(description="검색할 컬렉션 이름")]


def _sources_text(sources: list[Source]) -> str:
    return "\n".join(f"- {s.label()}" for s in sources)


def answer_result(thread: Thread, done: Done) -> CallToolResult:
    """A turn's `done` as a tool result: readable text and the same as structured content."""
    parts = [done.content]
    if done.sources:
        parts.append("출처:\n" + _sources_text(done.sources))
    follow = "답을 기다립니다 — 같은 thread_id로 답해 주세요" if done.waiting else "이어서 물으려면"
    parts.append(f"({follow}: thread_id={thread.id})")
    return CallToolResult(
        content=[TextContent(type="text", text="\n\n".join(parts))],
        structuredContent={
            "thread_id": thread.id,
            "answer": done.content,
            "waiting": done.waiting,
            "sources": [s.model_dump(mode="json") for s in done.sources],
        },
    )


async def _thread(door: Door, agent: str, thread_id: str | None, options: dict[str, Any]) -> Thread:
    store = door.turns.store
    if thread_id:
        thread = await store.thread(door.owner, thread_id)
        if thread is None:
            raise ToolError("대화를 찾을 수 없습니다.")
        if thread.agent != agent:
            raise ToolError(f"이 대화는 {thread.agent} 에이전트의 대화입니다 (ask_{thread.agent}).")
        return thread
    await check_options(store, door.owner, options)
    return await store.create_thread(door.owner, agent, "", options)


async def ask(
    door: Door,
    agent: str,
    message: str,
    thread_id: str | None,
    progress: Progress | None = None,
    **options: Any,
) -> tuple[Thread, Done]:
    """One turn, as `POST /threads/{id}/messages` runs it: the thread and the turn's `done`;
    `progress(n, text)` hears each step (thinking, tools, sources) as it happens."""
    try:
        check_message(door.turns.settings, message)
        thread = await _thread(door, agent, thread_id, {k: v for k, v in options.items() if v})
        running = await door.turns.start(thread, message)
    except HTTPException as e:
        raise ToolError(str(e.detail)) from e
    except DureError as e:
        raise ToolError(str(e)) from e
    done = Done(content="")
    steps = 0
    async for event in running.events():  # it always ends with `done`
        if isinstance(event, Done):
            done = event
        elif progress is not None and not isinstance(event, Token):
            steps += 1
            await progress(steps, _step_text(event))
    return thread, done


def _step_text(event: Event) -> str:
    """An event as one progress line: `thinking: 조항 검색 중`, `sources: 계약서 제2조 …`."""
    if isinstance(event, SourcesEvent):
        content = ", ".join(s.label() for s in event.content)
    else:
        content = event.content if isinstance(event.content, str) else event.type
    return f"{event.type}: {content}"[:300]


def _agent_tool(server: DureMCP, agent: str) -> Callable[..., Any]:
    """`ask_<agent>`: its signature names the options this agent takes (FastMCP reads it)."""

    async def tool(
        message: Message,
        ctx: Context,
        thread_id: ThreadId = None,
        contract: ContractId = None,
        standard: StandardId = None,
        collection: CollectionName = None,
    ) -> CallToolResult:
        options = {"contract": contract, "standard": standard, "collection": collection}

        async def progress(step: int, text: str) -> None:  # only if the client asked for it
            await ctx.report_progress(step, message=text)

        door = server.door(ctx)
        return answer_result(*await ask(door, agent, message, thread_id, progress, **options))

    taken = {"message", "ctx", "thread_id", *AGENT_OPTIONS.get(agent, ())}
    signature = inspect.signature(tool, eval_str=True)
    params = [p for p in signature.parameters.values() if p.name in taken]
    tool.__signature__ = signature.replace(parameters=params)  # type: ignore[attr-defined]
    return tool


def _hits(door: Door, name: str, query: str, top_k: int) -> list[Source]:
    from dure.retrieval import MAX_QUERY_CHARS, has_documents, shared_collection

    settings = door.turns.settings
    owned = collection_for(door.owner, name)
    if not has_documents(owned, settings):
        raise ToolError(f"컬렉션 '{name}'에 문서가 없습니다. documents_add로 먼저 등록하세요.")
    found = shared_collection(owned, settings).search(query[:MAX_QUERY_CHARS], top_k=top_k)
    return [h.to_source() for h in found]


async def search(door: Door, query: str, collection: str, top_k: int) -> CallToolResult:
    """The owner's collection searched as `dure search` searches it, each hit cited."""
    if not query.strip():
        raise ToolError("검색어가 비어 있습니다.")
    try:
        sources = await asyncio.to_thread(_hits, door, collection, query, top_k)
    except DureError as e:
        raise ToolError(str(e)) from e
    blocks = [f"[{i}] {s.label()}\n{s.text.strip()}" for i, s in enumerate(sources, 1)]
    return CallToolResult(
        content=[TextContent(type="text", text="\n\n".join(blocks) or "결과가 없습니다.")],
        structuredContent={"hits": [s.model_dump(mode="json") for s in sources]},
    )


def _content_bytes(content: str, encoding: str) -> bytes:
    if encoding == "text":
        return content.encode("utf-8")
    try:
        return base64.b64decode(content, validate=True)
    except (binascii.Error, ValueError) as e:
        raise ToolError("content가 올바른 base64가 아닙니다.") from e


async def add_document(
    door: Door, file_name: str, content: str, encoding: str, kind: str, collection: str | None
) -> dict[str, Any]:
    """A document from its bytes, stored and indexed as `dure documents add` does it."""
    if kind not in DOC_KINDS:
        raise ToolError(f"kind는 {', '.join(DOC_KINDS)} 중 하나여야 합니다: {kind!r}")
    data = io.BytesIO(_content_bytes(content, encoding))
    target = collection or default_collection(kind)
    try:
        return await save_upload(
            door.turns.store,
            door.turns.settings,
            door.owner,
            file_name,
            data,
            kind,
            target,
        )
    except DureError as e:
        raise ToolError(str(e)) from e


def document_uri(doc_id: str, article_no: str | None = None) -> str:
    """A document's (or one of its articles') resource URI."""
    base = f"dure://documents/{doc_id}"
    return f"{base}/articles/{quote(article_no)}" if article_no else base


async def _document(door: Door, doc_id: str) -> dict[str, Any]:
    doc = await door.turns.store.document(door.owner, unquote(doc_id))
    if doc is None:
        raise ValueError("문서를 찾을 수 없습니다.")
    return doc


class DureMCP(FastMCP):
    """FastMCP whose resource list is the calling owner's documents and their articles."""

    def __init__(self, resolve: Resolve) -> None:
        super().__init__(
            "dure",
            instructions=INSTRUCTIONS,
            stateless_http=True,  # any worker answers any request (`--workers N`)
            streamable_http_path="/mcp",
            # the HTTP API's own guards (keys, loopback-only without auth) stand in front
            transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        )
        self.door = resolve

    async def run_stdio(self, protocol: BinaryIO) -> None:
        """Serve on stdin and `protocol` (the real stdout, kept for the protocol alone)."""
        out = anyio.wrap_file(TextIOWrapper(protocol, encoding="utf-8"))
        async with stdio_server(stdout=out) as (read, write):
            options = self._mcp_server.create_initialization_options()
            await self._mcp_server.run(read, write, options)

    async def list_resources(self) -> list[Resource]:
        """Every document of the caller, and every article of its contracts and standards."""
        door = self.door(self.get_context())
        found: list[Resource] = []
        for doc in await door.turns.store.documents(door.owner):
            found.append(
                Resource(uri=document_uri(doc["id"]), name=doc["name"], mimeType="text/plain")  # type: ignore[arg-type]
            )
            if doc["kind"] == "document":
                continue
            _, articles = await articles_of(doc)
            found += [
                Resource(
                    uri=document_uri(doc["id"], a.no),  # type: ignore[arg-type]
                    name=f"{doc['name']} {a.no}",
                    title=f"{a.no} ({a.title})" if a.title else a.no,
                    mimeType="text/plain",
                )
                for a in articles.values()
            ]
        return found


def build_server(resolve: Resolve) -> DureMCP:
    """Dure's MCP server; `resolve(ctx)` names the owner and turn runner of each request."""
    server = DureMCP(resolve)
    for name in agent_names():
        title = get_agent(name).title
        server.add_tool(
            _agent_tool(server, name),
            name=f"ask_{name}",
            description=f"{title} — 한 번 묻고 답(출처 포함)을 받습니다. 대화를 이으려면 thread_id.",
        )

    @server.tool(name="search", annotations=READ_ONLY)
    async def search_tool(
        query: Annotated[str, Field(description="검색어")],
        ctx: Context,
        collection: Annotated[
            str, Field(description="contracts(계약서) · documents(문서) 또는 지정한 컬렉션")
        ] = "contracts",
        top_k: Annotated[int, Field(ge=1, le=20, description="결과 수")] = 5,
    ) -> CallToolResult:
        """컬렉션을 하이브리드 검색(Kiwi BM25 + 임베딩)하고 조항 출처와 함께 돌려줍니다."""
        return await search(server.door(ctx), query, collection, top_k)

    @server.tool(name="documents_add")
    async def documents_add(
        file_name: Annotated[str, Field(description="파일 이름 (.md .txt .pdf .docx .hwp .hwpx)")],
        content: Annotated[str, Field(description="파일 내용 (텍스트, 또는 base64)")],
        ctx: Context,
        encoding: Annotated[str, Field(pattern="^(text|base64)$")] = "text",
        kind: Annotated[str, Field(description="contract | standard | document")] = "contract",
        collection: CollectionName = None,
    ) -> dict[str, Any]:
        """문서를 내용과 파일 이름으로 등록하고 색인합니다 (서버의 파일 경로는 받지 않습니다)."""
        return await add_document(server.door(ctx), file_name, content, encoding, kind, collection)

    @server.resource("dure://documents/{doc_id}", mime_type="text/plain")
    async def document_text(doc_id: str, ctx: Context) -> str:
        """등록한 문서의 본문."""
        doc = await _document(server.door(ctx), doc_id)
        return (await asyncio.to_thread(load_document, doc["path"])).text

    @server.resource("dure://documents/{doc_id}/articles/{no}", mime_type="text/plain")
    async def article_text(doc_id: str, no: str, ctx: Context) -> str:
        """계약서·표준계약서의 한 조항 (예: 제5조)."""
        _, articles = await articles_of(await _document(server.door(ctx), doc_id))
        article = articles.get(unquote(no))
        if article is None:
            raise ValueError(f"조항을 찾을 수 없습니다: {unquote(no)}")
        return article.text

    return server
