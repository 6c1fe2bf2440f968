"""The `summarize` tool: one LLM call, tagged so usage counts it apart."""

from __future__ import annotations

from dure.tags import TOOL_LLM_TAG
from dure.testing import ScriptedChatModel
from dure.tools.base import ToolRegistry
from dure.tools.summarize import MAX_INPUT_CHARS, summarize_tool


async def test_summarize_calls_the_model_with_the_tool_tag() -> None:
    model = ScriptedChatModel(["LangGraph는 상태 그래프 프레임워크입니다."])
    reg = ToolRegistry([summarize_tool(lambda: model)])
    result = await reg.run("summarize", {"text": "LangGraph는 ... 긴 설명 ..."})
    assert result.ok and result.content == "LangGraph는 상태 그래프 프레임워크입니다."
    assert TOOL_LLM_TAG in model.calls[0].tags
    assert "긴 설명" in model.calls[0].prompt


async def test_long_text_is_cut_before_the_call() -> None:
    model = ScriptedChatModel(["요약"])
    reg = ToolRegistry([summarize_tool(lambda: model)])
    await reg.run("summarize", {"text": "가" * (MAX_INPUT_CHARS * 2)})
    assert model.calls[0].prompt.count("가") == MAX_INPUT_CHARS


async def test_empty_text_fails_without_a_call() -> None:
    model = ScriptedChatModel([])
    result = await ToolRegistry([summarize_tool(lambda: model)]).run("summarize", {"text": "  "})
    assert not result.ok and model.calls == []


async def test_model_error_is_a_failed_result() -> None:
    model = ScriptedChatModel([RuntimeError("서버 오류")])
    result = await ToolRegistry([summarize_tool(lambda: model)]).run("summarize", {"text": "글"})
    assert not result.ok and "서버 오류" in result.content
