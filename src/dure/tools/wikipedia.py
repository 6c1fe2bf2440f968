"""The `search_wikipedia` tool: Korean Wikipedia first, English when Korean has nothing.

One MediaWiki API request per language (`generator=search` with `prop=extracts|info`) returns
the matching pages with their introductions and URLs.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from dure.settings import Settings
from dure.sources import Source
from dure.tools._http import ServiceError, clip, request_json
from dure.tools.base import Tool, ToolResult

SERVICE = "위키백과"
LANGUAGES = ("ko", "en")
EXTRACT_CHARS = 800


class WikipediaArgs(BaseModel):
    """Arguments of `search_wikipedia`."""

    query: str = Field(description="찾을 주제나 검색어")
    max_results: int = Field(3, ge=1, le=5, description="가져올 문서 수 (1~5)")


def _pages(data: dict[str, Any]) -> list[dict[str, Any]]:
    pages = (data.get("query") or {}).get("pages") or []
    if isinstance(pages, dict):  # formatversion=1 keys pages by id
        pages = list(pages.values())
    return sorted(pages, key=lambda p: p.get("index", 0))


def wikipedia_tool(settings: Settings) -> Tool:
    """The `search_wikipedia` tool."""
    cfg = settings.assistant

    async def search(lang: str, query: str, limit: int) -> list[dict[str, Any]]:
        data = await request_json(
            "GET",
            f"{cfg.wikipedia_base_url.format(lang=lang).rstrip('/')}/w/api.php",
            service=SERVICE,
            timeout=cfg.http_timeout,
            params={
                "action": "query",
                "format": "json",
                "formatversion": "2",
                "generator": "search",
                "gsrsearch": query,
                "gsrlimit": limit,
                "prop": "extracts|info",
                "exintro": 1,
                "explaintext": 1,
                "exlimit": limit,
                "inprop": "url",
            },
        )
        return _pages(data)

    async def search_wikipedia(query: str, max_results: int = 3) -> ToolResult:
        if not query.strip():
            return ToolResult.fail("위키백과에서 찾을 검색어를 알려 주세요.")
        errors: list[str] = []
        for lang in LANGUAGES:
            try:
                pages = await search(lang, query.strip(), max_results)
            except ServiceError as e:
                errors.append(str(e))
                continue
            if pages:
                sources = [
                    Source(
                        doc=f"위키백과: {p.get('title', '')}",
                        kind="web",
                        text=clip(p.get("extract") or "", EXTRACT_CHARS),
                        url=p.get("fullurl"),
                    )
                    for p in pages
                ]
                lines = [f"({lang}.wikipedia.org 검색 결과)"]
                for p, s in zip(pages, sources, strict=True):
                    lines.append(
                        f"■ {p.get('title', '')} — {s.url or ''}\n{s.text or '(요약 없음)'}"
                    )
                return ToolResult(ok=True, content="\n\n".join(lines), sources=sources)
        if errors and len(errors) == len(LANGUAGES):
            return ToolResult.fail(errors[0])
        return ToolResult.fail(f"위키백과에서 '{query}'에 대한 문서를 찾지 못했습니다.")

    return Tool(
        name="search_wikipedia",
        description="위키백과에서 주제를 찾아 요약을 가져옵니다 (한국어 위키백과 우선, 없으면 영어).",
        args_schema=WikipediaArgs,
        func=search_wikipedia,
        timeout=2 * cfg.http_timeout + 5,
    )
