"""The audit trail and the conversation persist with the thread (SQLite), across reopenings."""

from __future__ import annotations

import asyncio
import json

import pytest
from pydantic import BaseModel
from typer.testing import CliRunner

from dure.agent import AgentContext
from dure.agents.pte import AGENT
from dure.cli import app
from dure.events import Done, ToolResultEvent, stream_turn
from dure.llm import ModelSet
from dure.persistence import open_checkpointer
from dure.settings import Settings
from dure.testing import ScriptedChatModel
from dure.tools.base import Tool, ToolRegistry

#: These scenarios script the intent call: the understanding layer goes to its LLM tier.
pytestmark = pytest.mark.usefixtures("llm_tier")


class Query(BaseModel):
    query: str


def search_tool() -> Tool:
    return Tool("web_search", "웹 검색", Query, lambda query: f"[검색] {query}")


async def run_turn(settings: Settings, model: ScriptedChatModel, message: str) -> list:
    async with open_checkpointer(settings.effective_database_url) as saver:
        ctx = AgentContext(
            settings=settings,
            models=ModelSet(settings, model),
            checkpointer=saver,
            options={"tools": ToolRegistry([search_tool()])},
        )
        return [e async for e in stream_turn(AGENT, ctx, "thread-1", message)]


async def thread_state(settings: Settings) -> dict:
    async with open_checkpointer(settings.effective_database_url) as saver:
        ctx = AgentContext(settings=settings, models=ModelSet(settings), checkpointer=saver)
        graph = AGENT.build(ctx)
        return (await graph.aget_state({"configurable": {"thread_id": "thread-1"}})).values


async def turn_ends(settings: Settings) -> list[dict]:
    """The state at the end of each turn, oldest first, from the checkpoint history."""
    async with open_checkpointer(settings.effective_database_url) as saver:
        ctx = AgentContext(settings=settings, models=ModelSet(settings), checkpointer=saver)
        graph = AGENT.build(ctx)
        config = {"configurable": {"thread_id": "thread-1"}}
        history = [s async for s in graph.aget_state_history(config)]
    return [s.values for s in reversed(history) if not s.next]


async def test_audit_trail_and_history_survive_reopening(settings: Settings) -> None:
    assert settings.effective_database_url.startswith("sqlite:///")
    model = ScriptedChatModel(
        [
            {"intent": "new_question", "rewritten_query": "영등포 맛집", "needs_tool": True},
            {"plan": [{"step_id": 1, "tool": "web_search", "input": "영등포 맛집"}]},
            "A식당을 추천합니다.",
        ]
    )
    events = await run_turn(settings, model, "영등포 맛집 추천해줘")
    streamed = [e.step for e in events if isinstance(e, ToolResultEvent)]

    state = await thread_state(settings)  # a new connection: what was written to disk
    assert state["past_steps"] == streamed
    assert state["past_steps"][0]["output"] == "[검색] 영등포 맛집"
    assert state["messages"][-1] == {"role": "assistant", "content": "A식당을 추천합니다."}

    follow = ScriptedChatModel(
        [
            {"intent": "follow_up", "rewritten_query": "영등포 다른 맛집", "needs_tool": True},
            {"plan": [{"step_id": 1, "tool": "web_search", "input": "영등포 다른 맛집"}]},
            "B식당도 있습니다.",
        ]
    )
    events = await run_turn(settings, follow, "더 있어?")
    assert isinstance(events[-1], Done) and events[-1].content == "B식당도 있습니다."
    assert "A식당을 추천합니다." in follow.calls[0].prompt  # history came back from disk
    state = await thread_state(settings)
    assert [m["content"] for m in state["messages"]] == [
        "영등포 맛집 추천해줘",
        "A식당을 추천합니다.",
        "더 있어?",
        "B식당도 있습니다.",
    ]
    # This turn's audit trail is fresh; the first turn's stays in the checkpoint history.
    assert [r["step"]["input"] for r in state["past_steps"]] == ["영등포 다른 맛집"]
    trails = [[r["step"]["input"] for r in s["past_steps"]] for s in await turn_ends(settings)]
    assert trails == [["영등포 맛집"], ["영등포 다른 맛집"]]


def test_cli_json_shows_the_audit_trail(settings: Settings, monkeypatch) -> None:
    """`dure ask --agent pte --json`: the shared registry's real calculator, a scripted model."""
    model = ScriptedChatModel(
        [
            {"intent": "new_question", "rewritten_query": "3*7 계산", "needs_tool": True},
            {"plan": [{"step_id": 1, "tool": "calculator", "input": "3*7"}]},
            "3*7은 21입니다.",
        ]
    )
    monkeypatch.setattr("dure.llm.ModelSet", lambda s: ModelSet(s, model))
    result = CliRunner().invoke(
        app, ["ask", "--agent", "pte", "--json", "--thread", "thread-1", "3*7 계산해줘"]
    )
    assert result.exit_code == 0, result.output
    events = [json.loads(line) for line in result.output.splitlines()]
    [tool] = [e for e in events if e["type"] == "tool_result"]
    assert tool["tool"] == "calculator" and tool["ok"] is True
    assert tool["step"]["step"] == {"step_id": 1, "tool": "calculator", "input": "3*7"}
    assert tool["step"]["status"] == "success" and tool["step"]["output"] == "21"
    assert {"elapsed_ms", "started_at"} <= tool["step"].keys()
    assert events[-1]["type"] == "done" and events[-1]["content"] == "3*7은 21입니다."
    assert events[-1]["usage"]["llm_calls"] == 3
    # The same trail is on disk with the thread.
    state = asyncio.run(thread_state(settings))
    assert state["past_steps"] == [tool["step"]]
