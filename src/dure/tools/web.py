"""The `web_search` tool: Tavily search (`TAVILY_API_KEY`)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from dure.settings import Settings
from dure.sources import Source
from dure.tools._http import ServiceError, api_key, clip, missing_key_message, request_json
from dure.tools.base import Tool, ToolResult

SERVICE = "웹 검색 서비스(Tavily)"
SNIPPET_CHARS = 500


class WebSearchArgs(BaseModel):
    """Arguments of `web_search`."""

    query: str = Field(description="검색어")
    max_results: int = Field(5, ge=1, le=10, description="가져올 결과 수 (1~10)")


def web_search_tool(settings: Settings) -> Tool:
    """The `web_search` tool."""
    cfg = settings.assistant

    async def web_search(query: str, max_results: int = 5) -> ToolResult:
        key = api_key(cfg.tavily_api_key)
        if key is None:
            return ToolResult.fail(
                missing_key_message(SERVICE, "TAVILY_API_KEY", "DURE_ASSISTANT__TAVILY_API_KEY")
            )
        if not query.strip():
            return ToolResult.fail("검색어를 알려 주세요.")
        try:
            data = await request_json(
                "POST",
                f"{cfg.tavily_base_url.rstrip('/')}/search",
                service=SERVICE,
                timeout=cfg.http_timeout,
                headers={"Authorization": f"Bearer {key}"},
                json={
                    "query": query.strip(),
                    "max_results": max_results,
                    "search_depth": "basic",
                    "include_answer": True,
                },
            )
        except ServiceError as e:
            return ToolResult.fail(str(e))
        results = data.get("results") or []
        if not results and not data.get("answer"):
            return ToolResult.fail(f"'{query}'에 대한 웹 검색 결과가 없습니다.")
        sources = [
            Source(
                doc=r.get("title") or r.get("url") or "웹 문서",
                kind="web",
                text=clip(r.get("content") or "", SNIPPET_CHARS),
                score=r.get("score"),
                url=r.get("url"),
            )
            for r in results
        ]
        lines = [f"요약 답변: {data['answer']}"] if data.get("answer") else []
        lines += [f"■ {s.doc} — {s.url or ''}\n{s.text}" for s in sources]
        return ToolResult(ok=True, content="\n\n".join(lines), sources=sources)

    return Tool(
        name="web_search",
        description="인터넷에서 최신 정보를 검색합니다 (뉴스, 최근 사건, 일반 정보).",
        args_schema=WebSearchArgs,
        func=web_search,
        timeout=cfg.http_timeout + 5,
    )
