"""The tool registry never raises from `run`, and its signatures find duplicate calls."""

from __future__ import annotations

import asyncio
import threading
import unicodedata

import pytest
from pydantic import BaseModel, Field

from dure.sources import Source
from dure.tools import Tool, ToolRegistry, ToolResult, UnknownToolError, signature


class Query(BaseModel):
    query: str = Field(description="검색어")
    limit: int = 3


class Nothing(BaseModel):
    pass


async def search(query: str, limit: int) -> ToolResult:
    return ToolResult(
        ok=True,
        content=f"{query} 결과 {limit}건",
        sources=[Source(doc="계약서", article_no="제5조")],
    )


def count_chars(query: str, limit: int) -> str:
    return str(len(query) + limit)


def explode(query: str, limit: int) -> str:
    raise RuntimeError("도구 내부 오류")


async def sleep_long(query: str, limit: int) -> str:
    await asyncio.sleep(30)
    return "너무 늦음"


@pytest.fixture
def registry() -> ToolRegistry:
    return ToolRegistry(
        [
            Tool("search", "문서를 검색합니다", Query, search),
            Tool("count_chars", "글자 수", Query, count_chars),
            Tool("explode", "항상 실패", Query, explode),
            Tool("sleep_long", "느린 도구", Query, sleep_long, timeout=0.05),
            Tool("now", "현재 시각", Nothing, lambda: "12:00"),
        ]
    )


async def test_async_tool_result_is_returned(registry: ToolRegistry) -> None:
    result = await registry.run("search", {"query": "보증금"})
    assert result.ok and result.content == "보증금 결과 3건"
    assert result.sources[0].article_no == "제5조"
    assert result.elapsed_ms >= 0


async def test_sync_tool_text_becomes_a_result(registry: ToolRegistry) -> None:
    result = await registry.run("count_chars", {"query": "가나다", "limit": 2})
    assert result == ToolResult(ok=True, content="5", elapsed_ms=result.elapsed_ms)


async def test_plain_callable_returning_a_coroutine_is_awaited() -> None:
    registry = ToolRegistry([Tool("wrapped", "감싼 검색", Query, lambda **kw: search(**kw))])
    result = await registry.run("wrapped", {"query": "위약금", "limit": 1})
    assert result.ok and result.content == "위약금 결과 1건"


async def test_tool_without_arguments(registry: ToolRegistry) -> None:
    assert (await registry.run("now")).content == "12:00"
    assert (await registry.run("now", {})).ok


async def test_unknown_tool_is_a_failed_result(registry: ToolRegistry) -> None:
    result = await registry.run("delete_everything", {})
    assert not result.ok
    assert result.content == "알 수 없는 도구입니다: delete_everything"


async def test_bad_arguments_give_a_korean_message(registry: ToolRegistry) -> None:
    result = await registry.run("search", {"limit": "많이"})
    assert not result.ok
    assert result.content.startswith("search 도구의 인자가 올바르지 않습니다")
    assert "query" in result.content and "limit" in result.content


async def test_exception_becomes_a_failed_result(registry: ToolRegistry) -> None:
    result = await registry.run("explode", {"query": "x"})
    assert not result.ok
    assert "도구 실행 중 오류" in result.content and "도구 내부 오류" in result.content


async def test_async_timeout_becomes_a_failed_result(registry: ToolRegistry) -> None:
    result = await registry.run("sleep_long", {"query": "x"})
    assert not result.ok
    assert result.content == "sleep_long 도구가 0.05초 안에 끝나지 않았습니다."


async def test_sync_timeout_does_not_wait_for_the_thread() -> None:
    release = threading.Event()

    def blocking(query: str, limit: int) -> str:
        release.wait(30)
        return "늦은 답"

    registry = ToolRegistry([Tool("blocking", "막힘", Query, blocking, timeout=0.05)])
    try:
        result = await registry.run("blocking", {"query": "x"})
        assert not result.ok and "0.05초" in result.content
    finally:
        release.set()  # let the worker thread finish so the loop can close


def test_signature_normalises_arguments() -> None:
    decomposed = unicodedata.normalize("NFD", "보증금 반환")
    same = [
        {"query": "보증금 반환", "limit": 3},
        {"limit": 3, "query": "  보증금   반환 "},
        {"query": "보증금\n반환", "limit": 3, "extra": None, "more": ""},
        {"query": decomposed, "limit": 3},
    ]
    assert len({signature("search", a) for a in same}) == 1
    assert signature("search", {"query": "ABC"}) == signature("search", {"query": "abc"})
    assert signature("search", {}) == signature("search", {"query": None, "tags": []})
    assert signature("search", {"query": "보증금"}) != signature("search", {"query": "위약금"})
    assert signature("search", {"query": "x"}) != signature("lookup", {"query": "x"})
    assert signature("search", {"limit": 3}) != signature("search", {"limit": 4})


def test_allow_gives_a_subset_and_refuses_unknown_names(registry: ToolRegistry) -> None:
    allowed = registry.allow(["search", "now"])
    assert allowed.names() == ["search", "now"]
    assert "explode" not in allowed and len(allowed) == 2
    with pytest.raises(UnknownToolError):
        registry.allow(["search", "rm_rf"])


async def test_a_tool_outside_the_allow_list_fails_closed(registry: ToolRegistry) -> None:
    result = await registry.allow(["search"]).run("explode", {"query": "x"})
    assert not result.ok and "알 수 없는 도구" in result.content


def test_register_twice_is_refused(registry: ToolRegistry) -> None:
    with pytest.raises(ValueError, match="twice"):
        registry.register(Tool("search", "또", Query, search))


def test_schemas_and_manifest(registry: ToolRegistry) -> None:
    schema = registry.allow(["search"]).schemas()[0]
    assert schema["type"] == "function"
    assert schema["function"]["name"] == "search"
    assert schema["function"]["parameters"]["required"] == ["query"]
    assert "title" not in schema["function"]["parameters"]
    manifest = registry.allow(["search", "now"]).manifest()
    assert manifest.splitlines() == [
        "- search(query: 검색어, limit: integer): 문서를 검색합니다",
        "- now(): 현재 시각",
    ]
