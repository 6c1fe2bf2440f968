"""The assistant on the real local model calls a tool of a real MCP server (the FastMCP sample
server over stdio, allowed by name): two model calls, the tool call and the answer."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from dure.agent import AgentContext
from dure.agents.assistant import AGENT
from dure.events import Done, ToolResultEvent, stream_turn
from dure.llm import ModelSet
from dure.settings import McpServerSettings, Settings
from dure.tools.base import ToolRegistry

pytestmark = pytest.mark.local_model
SERVER = Path(__file__).parents[1] / "mcp_sample_server.py"


@pytest.mark.timeout(900)
async def test_the_local_model_calls_an_outside_mcp_tool(settings: Settings) -> None:
    assert settings.model_path.is_file(), (
        "로컬 모델이 없습니다: DURE_LOCAL__PATH=$(dure models path)"
    )
    sample = McpServerSettings(command=sys.executable, args=[str(SERVER)], tools=["note"])
    settings.mcp.servers = {"sample": sample}
    settings.approvals = {"assistant": {"sample_note": "allow"}}
    # Only the server's tool is offered, so the test measures MCP, not the choice among eight.
    ctx = AgentContext(settings, ModelSet(settings), InMemorySaver(), {"tools": ToolRegistry()})
    events = [
        e
        async for e in stream_turn(
            AGENT, ctx, "t", "sample_note 도구로 '금요일 3시 회의'를 메모해 줘"
        )
    ]
    results = [e for e in events if isinstance(e, ToolResultEvent)]
    assert [(r.tool, r.ok) for r in results] == [("sample_note", True)]
    assert str(results[0].content).startswith("메모 저장됨:") and "회의" in str(results[0].content)
    done = events[-1]
    assert isinstance(done, Done) and done.content.strip()
    assert done.usage.llm_calls == 2  # the tool call, then the answer (the router is a rule)
