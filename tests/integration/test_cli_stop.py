"""Ctrl-C in `dure ask` / `dure chat` stops the answer (a real process, a real SIGINT, the
scripted `qa` agent streaming slowly), and the thread reads as before that turn."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
from pathlib import Path

from dure.agent import AgentContext
from dure.llm import ModelSet
from dure.persistence import open_checkpointer
from dure.settings import Settings
from server_agents import QA
from server_support import DURE, server_env

STOPPED = "답변을 중지했습니다."


def _as_in_a_terminal() -> None:
    """Ctrl-C reaches the child as it would from a terminal: a test run started in the
    background (`make test &`) ignores SIGINT, and a child inheriting that never sees it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _ask(env: dict[str, str], thread: str, message: str) -> None:
    args = [str(DURE), "ask", "--agent", "qa", "--thread", thread, message]
    done = subprocess.run(args, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def _interrupted_ask(env: dict[str, str], thread: str) -> subprocess.CompletedProcess[str]:
    """`dure ask` of a slow answer, interrupted with SIGINT once its first token is out."""
    args = [str(DURE), "ask", "--agent", "qa", "--thread", thread, "--json", "천천히 알려 줘"]
    proc = subprocess.Popen(
        args,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_as_in_a_terminal,
    )
    assert proc.stdout is not None
    lines = []
    for line in proc.stdout:
        lines.append(line)
        if json.loads(line)["type"] == "token":
            break
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=20)
    return subprocess.CompletedProcess(args, proc.returncode, "".join(lines) + out, err)


async def _messages(data: Path, thread: str) -> list[str]:
    settings = Settings(data_dir=data)
    async with open_checkpointer(settings.effective_database_url) as saver:
        ctx = AgentContext(settings=settings, models=ModelSet(settings), checkpointer=saver)
        state = await QA.build(ctx).aget_state({"configurable": {"thread_id": thread}})
        return [str(m.content) for m in state.values.get("messages", [])]


def test_ctrl_c_stops_the_answer_and_the_thread_reads_as_before(tmp_path: Path) -> None:
    data = tmp_path / "data"
    env = server_env(data, XDG_CACHE_HOME=str(tmp_path / "cache"), NO_COLOR="1")
    _ask(env, "t1", "계약기간은?")

    stopped = _interrupted_ask(env, "t1")
    assert stopped.returncode == 130, stopped.stderr
    assert STOPPED in stopped.stderr and "Traceback" not in stopped.stderr
    events = [json.loads(line)["type"] for line in stopped.stdout.splitlines()]
    assert "token" in events and "done" not in events  # it did not go on to the end
    # The thread is as it was after the first turn: the stopped question left nothing.
    before = asyncio.run(_messages(data, "t1"))
    assert len(before) == 2 and before[0] == "계약기간은?"

    _ask(env, "t1", "대금은?")
    assert asyncio.run(_messages(data, "t1"))[::2] == ["계약기간은?", "대금은?"]

    # In `dure chat` Ctrl-C stops that answer only; the chat goes on.
    chat = subprocess.Popen(
        [str(DURE), "chat", "--agent", "qa", "--json"],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_as_in_a_terminal,
    )
    assert chat.stdin is not None and chat.stdout is not None
    chat.stdin.write("천천히 알려 줘\n")
    chat.stdin.flush()
    for line in chat.stdout:
        if '"type": "token"' in line:
            break
    chat.send_signal(signal.SIGINT)
    chat.stdin.write("계약기간은?\n\n")
    chat.stdin.flush()
    out, err = chat.communicate(timeout=30)
    assert chat.returncode == 0, err
    assert STOPPED in err
    assert '"type": "done"' in out and "질문: 계약기간은?" in out
