"""The `summarize` tool: condenses a text with one LLM call.

The call is tagged `TOOL_LLM_TAG`, so usage counts it apart from the agent's own calls (the
LLM-call table of docs/agents/pte.md counts the planner and the answer, not a tool's insides).
"""

from __future__ import annotations

from collections.abc import Callable

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from dure.tags import TOOL_LLM_TAG
from dure.tools.base import Tool, ToolResult

#: Longest text sent to the model (the local model's context is 8k tokens).
MAX_INPUT_CHARS = 6000

SUMMARIZE_PROMPT = (
    "다음 글의 핵심만 3~5문장으로 요약하세요. 글에 없는 내용은 덧붙이지 말고, "
    "글과 같은 언어로 쓰세요 (한국어 글이면 한국어로). 요약문만 출력하세요."
)


class SummarizeArgs(BaseModel):
    """Arguments of `summarize`."""

    text: str = Field(description="요약할 글")


def summarize_tool(model: Callable[[], BaseChatModel], timeout: float = 120.0) -> Tool:
    """A `summarize` tool; `model` gives the chat model when first needed (built lazily)."""

    async def summarize(text: str) -> ToolResult:
        text = text.strip()
        if not text:
            return ToolResult.fail("요약할 내용이 비어 있습니다.")
        if len(text) > MAX_INPUT_CHARS:
            text = text[:MAX_INPUT_CHARS] + " …(이하 생략)"
        reply = await model().ainvoke(
            [SystemMessage(SUMMARIZE_PROMPT), HumanMessage(text)],
            config={"tags": [TOOL_LLM_TAG]},
        )
        summary = reply.text.strip()
        if not summary:
            return ToolResult.fail("요약 결과가 비어 있습니다.")
        return ToolResult(ok=True, content=summary)

    return Tool(
        name="summarize",
        description="긴 글(검색 결과, 문서 등)을 몇 문장으로 요약합니다.",
        args_schema=SummarizeArgs,
        func=summarize,
        timeout=timeout,
    )
