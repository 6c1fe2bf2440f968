"""Seed 002, scenario 5: threads live in the checkpointer and survive a restart.

The name told in turn 1 is recalled in turn 2 by a NEW `dure ask` process (the real CLI on a
SQLite file); the summaries of a long conversation come back after the checkpointer is
closed and reopened. The model is scripted and answers only from what the prompt shows it,
so a recalled name proves the state was loaded.

This module is also the agent the subprocesses run: `SCRIPTED` wraps the real assistant
graph with a scripted model (plugged in with `DURE_EXTRA_AGENTS`).
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

from demo_agent import cli_env, run_dure
from dure.agent import AgentContext
from dure.agents.assistant import AGENT
from dure.agents.assistant.deps import Deps
from dure.events import stream_turn
from dure.llm import ModelSet
from dure.persistence import open_checkpointer
from dure.settings import Settings
from dure.testing import Call, ScriptedChatModel

NAME_IS = re.compile(r"내\s*이름은\s*([가-힣]+?)(?:이야|야|입니다)")
SUMMARISED_NAME = re.compile(r"사용자 이름: ([가-힣]+)")


def names_in(text: str) -> list[str]:
    """Names the text tells: said by the user, or kept in a summary."""
    return SUMMARISED_NAME.findall(text) + NAME_IS.findall(text)


def remembering(call: Call) -> object:
    """Answers computed from the prompt alone: the name is known only if the prompt shows it."""
    if call.node == "router":
        return {"route": "agent", "reason": "일반 대화"}
    names = names_in(call.prompt)
    if call.node == "memory":
        return "핵심 사실:\n" + "".join(f"- 사용자 이름: {n}\n" for n in dict.fromkeys(names))
    question = str(call.messages[-1].content)
    if "이름이 뭐" in question:
        return f"{names[-1]}님이라고 하셨습니다." if names else "아직 이름을 모릅니다."
    told = NAME_IS.findall(question)
    return f"안녕하세요 {told[0]}님! 반갑습니다." if told else "알겠습니다."


def _scripted_deps(ctx: AgentContext) -> Deps:
    models = ModelSet(ctx.settings, ScriptedChatModel(remembering))
    return Deps.from_context(AgentContext(ctx.settings, models, ctx.checkpointer, ctx.options))


#: The assistant as it is, with a scripted model in its dependencies.
SCRIPTED = dataclasses.replace(AGENT, name="scripted_assistant", deps=_scripted_deps)


def _env(tmp_path: Path) -> dict[str, str]:
    env = cli_env(tmp_path / "data")
    env["PYTHONPATH"] = f"{Path(__file__).parent}:{env['PYTHONPATH']}"
    env["DURE_EXTRA_AGENTS"] = "scripted_assistant=test_assistant_persistence:SCRIPTED"
    return env


def _ask(env: dict[str, str], thread: str, message: str) -> dict[str, Any]:
    result = run_dure(
        "ask", "--agent", "scripted_assistant", "--thread", thread, "--json", message, env=env
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.splitlines()[-1])


def test_scenario_5_name_recalled_by_a_new_process(tmp_path: Path) -> None:
    env = _env(tmp_path)
    first = _ask(env, "abc-123", "내 이름은 철수야")
    assert first["content"] == "안녕하세요 철수님! 반갑습니다."
    # A second, independent process: the name can only come from the SQLite checkpointer.
    second = _ask(env, "abc-123", "내 이름이 뭐라고 했지?")
    assert second["type"] == "done"
    assert second["content"] == "철수님이라고 하셨습니다."
    assert second["usage"]["llm_calls"] <= 2  # seed: router 1 + agent 1
    assert (tmp_path / "data" / "dure.sqlite").exists()


async def test_summaries_are_carried_across_a_restart(settings: Settings, tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'threads.sqlite'}"

    async def turn(message: str) -> str:
        # A fresh checkpointer and graph each time, as a restarted process would have.
        async with open_checkpointer(url) as saver:
            ctx = AgentContext(settings, ModelSet(settings), saver, {})
            events = [e async for e in stream_turn(SCRIPTED, ctx, "long", message)]
            return str(events[-1].content)

    assert await turn("내 이름은 민수야") == "안녕하세요 민수님! 반갑습니다."
    for i in range(5):
        await turn(f"메모 {i}번: 오늘 할 일 정리")
    async with open_checkpointer(url) as saver:
        graph = SCRIPTED.build(AgentContext(settings, ModelSet(settings), saver, {}))
        values = (await graph.aget_state({"configurable": {"thread_id": "long"}})).values
    assert "사용자 이름: 민수" in values["summary"]
    assert all("민수" not in str(m.content) for m in values["messages"])  # only in the summary
    # Reopened once more: the name comes back from the summary alone.
    assert await turn("내 이름이 뭐라고 했지?") == "민수님이라고 하셨습니다."
