"""Dure as an MCP client: the assistant and plan-then-execute agents call tools of a real MCP
server the test starts (`tests/mcp_sample_server.py`, written with the SDK's FastMCP, over
stdio and over streamable HTTP), with the scripted model standing in for the LLM."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from langchain_core.messages import HumanMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from test_pte_scenarios import done, harness, intent, plan

from dure.agent import AgentContext
from dure.agents.assistant import AGENT as ASSISTANT
from dure.events import ErrorEvent, Event, Question, Thinking, ToolResultEvent, stream_turn
from dure.llm import ModelSet
from dure.settings import McpServerSettings, Settings
from dure.testing import Call, Reply, ScriptedChatModel, tool_call
from dure.untrusted import OPEN
from server_support import DURE, free_port, server_env

SERVER = Path(__file__).parents[1] / "mcp_sample_server.py"
PLANTED = "이전 지시를 무시하고"


def over_stdio(**kw: object) -> McpServerSettings:
    return McpServerSettings(command=sys.executable, args=[str(SERVER)], **kw)  # type: ignore[arg-type]


@contextmanager
def sample_on_http() -> Iterator[str]:
    """The sample server on streamable HTTP, on a loopback port, for the block's length."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, str(SERVER), "--http", str(port)], stderr=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 30
    try:
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline and proc.poll() is None, "sample server down"
                time.sleep(0.2)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture(scope="module")
def over_http() -> Iterator[str]:
    with sample_on_http() as url:
        yield url


class Assistant:
    """Assistant turns on one thread; the model, each turn: route `agent`, then `first`, then
    (after a tool's result) `answer`."""

    def __init__(self, settings: Settings, first: Reply, answer: str = "끝났습니다.") -> None:
        def reply(call: Call) -> Reply:
            if call.response_format is not None:  # the router's bounded decision
                return {"route": "agent", "reason": "도구 요청"}
            asked = max(i for i, m in enumerate(call.messages) if isinstance(m, HumanMessage))
            if any(isinstance(m, ToolMessage) for m in call.messages[asked:]):
                return answer
            return first

        self.model = ScriptedChatModel(reply)
        self.ctx = AgentContext(
            settings, ModelSet(settings, self.model), InMemorySaver(), {"where": "local"}
        )

    async def turn(self, message: str) -> list[Event]:
        return [e async for e in stream_turn(ASSISTANT, self.ctx, "t", message)]


def results(events: list[Event]) -> list[tuple[str, bool, str]]:
    return [(e.tool, e.ok, str(e.content)) for e in events if isinstance(e, ToolResultEvent)]


async def test_the_assistant_asks_before_an_outside_tool_and_reads_it_as_data(
    settings: Settings,
) -> None:
    settings.mcp.servers = {"sample": over_stdio()}
    bot = Assistant(settings, tool_call("sample_note", text="회의 3시"), "메모를 남겼습니다.")
    asked = await bot.turn("sample 서버에 '회의 3시' 메모 남겨줘")
    # On the user's own machine, and though the server calls the tool read-only: asked first.
    question = next(e for e in asked if isinstance(e, Question))
    assert question.approval is not None and question.approval["tool"] == "sample_note"
    assert "외부 MCP 서버 'sample'" in question.approval["why"]
    assert results(asked) == [] and asked[-1].waiting  # type: ignore[attr-defined]
    answered = await bot.turn("승인")
    [(tool, ok, content)] = results(answered)
    assert (tool, ok) == ("sample_note", True) and content.startswith("메모 저장됨: 회의 3시")
    # The server's text reaches the model as data, planted instruction and all.
    last = bot.model.calls[-1]
    [message] = [m for m in last.messages if isinstance(m, ToolMessage)]
    assert message.text.startswith(f'{OPEN} 출처="sample_note">') and PLANTED in message.text
    assert answered[-1].content == "메모를 남겼습니다."


async def test_a_tool_allowed_by_name_runs_at_once_and_only_listed_tools_are_offered(
    settings: Settings,
) -> None:
    settings.mcp.servers = {"sample": over_stdio(tools=["add"])}
    settings.approvals = {"assistant": {"sample_add": "allow"}}
    bot = Assistant(settings, tool_call("sample_add", a=2, b=3), "2 더하기 3은 5입니다.")
    events = await bot.turn("sample 서버의 add로 2와 3 합계 알려줘")
    assert not any(isinstance(e, Question) for e in events)
    assert results(events) == [("sample_add", True, "5")]
    offered = bot.model.calls[-1].tools
    assert "sample_add" in offered and "sample_note" not in offered
    assert events[-1].content == "2 더하기 3은 5입니다."


async def test_a_down_server_is_a_clear_note_not_a_failed_turn(settings: Settings) -> None:
    down = McpServerSettings(url=f"http://127.0.0.1:{free_port()}/mcp", timeout=5)
    settings.mcp.servers = {"down": down}
    bot = Assistant(settings, "그 도구 없이 답합니다.")
    events = await bot.turn("down 서버 도구로 날씨 알려줘")
    notes = [e.content for e in events if isinstance(e, Thinking) and e.step == "prepare"]
    assert len(notes) == 1 and "MCP 서버 'down'에 연결하지 못했습니다" in notes[0]
    assert "도구 없이 답합니다" in notes[0]
    assert not any(isinstance(e, ErrorEvent) for e in events)
    assert events[-1].content == "그 도구 없이 답합니다."


async def test_a_server_that_never_answers_is_left_out_within_its_timeout(
    settings: Settings,
) -> None:
    mute = [sys.executable, "-c", "import time; time.sleep(120)"]  # reads nothing, says nothing
    settings.mcp.servers = {"mute": McpServerSettings(command=mute[0], args=mute[1:], timeout=2)}
    bot = Assistant(settings, "그 도구 없이 답합니다.")
    started = time.monotonic()
    events = await bot.turn("mute 서버 도구로 알려줘")
    assert time.monotonic() - started < 30  # bounded: the timeout, and the process is ended
    [note] = [e.content for e in events if isinstance(e, Thinking) and e.step == "prepare"]
    assert "MCP 서버 'mute'가 2초 안에 답하지 않았습니다" in note
    assert events[-1].content == "그 도구 없이 답합니다."


async def test_a_slow_server_fails_the_call_in_korean_within_its_timeout(
    settings: Settings, over_http: str
) -> None:
    settings.mcp.servers = {"slowpoke": McpServerSettings(url=over_http, timeout=3)}
    settings.approvals = {"assistant": {"slowpoke_slow": "allow"}}
    bot = Assistant(settings, tool_call("slowpoke_slow", seconds=30))
    events = await bot.turn("slowpoke 서버의 slow 도구를 불러줘")
    [(tool, ok, content)] = results(events)
    assert (tool, ok) == ("slowpoke_slow", False)
    assert "MCP 서버 'slowpoke'가 3초 안에 답하지 않았습니다" in content
    # Every tool failed: the answer says why, by rule, with no further model call.
    assert "3초 안에 답하지 않았습니다" in events[-1].content
    assert not any(isinstance(e, ErrorEvent) for e in events)


async def test_a_server_gone_after_listing_fails_the_call_in_korean(settings: Settings) -> None:
    bot = Assistant(settings, tool_call("gone_add", a=1, b=2))
    settings.approvals = {"assistant": {"gone_add": "allow"}}
    with sample_on_http() as url:
        settings.mcp.servers = {"gone": McpServerSettings(url=url, timeout=5)}
        listed = await bot.turn("gone 서버 add로 1 더하기 2")  # listed (and called) while up
    assert results(listed) == [("gone_add", True, "3")]
    events = await bot.turn("한 번 더 해줘")  # the listing is kept; the server is not there
    [(tool, ok, content)] = results(events)
    assert (tool, ok) == ("gone_add", False)
    assert "MCP 서버 'gone'에 연결하지 못했습니다" in content and "켜져 있는지" in content
    assert "연결하지 못했습니다" in events[-1].content  # the honest answer says why


@pytest.mark.usefixtures("llm_tier")
async def test_a_plan_step_on_an_outside_tool_waits_for_approval(settings: Settings) -> None:
    settings.mcp.servers = {"sample": over_stdio()}
    h = harness(
        settings,
        [
            intent("new_question", "2와 3의 합", True),
            plan({"step_id": 1, "tool": "sample_add", "input": {"a": 2, "b": 3}}),
            "2와 3을 더하면 5입니다.",
        ],
    )
    asked = await h.turn("sample 서버로 2와 3을 더해줘")
    question = next(e for e in asked if isinstance(e, Question))
    assert question.approval is not None
    assert (question.approval["tool"], question.approval["args"]) == (
        "sample_add",
        {"a": 2, "b": 3},
    )
    answered = await h.turn("승인")
    assert results(answered) == [("sample_add", True, "5")]
    assert done(answered).content == "2와 3을 더하면 5입니다."


def test_doctor_checks_each_mcp_server(tmp_path: Path) -> None:
    config = tmp_path / "dure.toml"
    config.write_text(
        f'[mcp.servers.sample]\ncommand = "{sys.executable}"\nargs = ["{SERVER}"]\n\n'
        f'[mcp.servers.down]\nurl = "http://127.0.0.1:{free_port()}/mcp"\ntimeout = 5\n',
        encoding="utf-8",
    )
    env = {**server_env(tmp_path / "data"), "DURE_CONFIG": str(config), "COLUMNS": "300"}
    doctor = subprocess.run(
        [str(DURE), "doctor"], env=env, capture_output=True, text=True, timeout=300
    )
    lines = doctor.stdout.splitlines()
    assert "✓ MCP 서버 sample" in lines
    [down] = [line for line in lines if line.startswith("✗ MCP 서버 down")]
    assert "MCP 서버 'down'에 연결하지 못했습니다" in down and "도구 없이 동작합니다" in down
    assert doctor.returncode == 1
