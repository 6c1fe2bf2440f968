"""Threads persist: written by one process, read back by a new one, on SQLite and Postgres.

The in-process tests run one body against every checkpointer (memory, SQLite, Postgres), as
LangGraph's own checkpointer fixture does.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import psycopg
import pytest

import demo_agent
from demo_agent import cli_env, run_dure
from dure.agent import AgentContext
from dure.events import Done, Event, stream_turn
from dure.llm import ModelSet
from dure.persistence import open_checkpointer
from dure.settings import Settings
from dure.testing import ScriptedChatModel

KINDS = ["memory", "sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
DURABLE = KINDS[1:]


def _url(kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    if kind == "memory":
        return "memory"
    if kind == "sqlite":
        return f"sqlite:///{tmp_path / 'threads' / 'dure.sqlite'}"
    return request.getfixturevalue("postgres_url")


@pytest.fixture(params=KINDS)
def checkpointer_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Every kind of checkpointer."""
    return _url(request.param, tmp_path, request)


@pytest.fixture(params=DURABLE)
def durable_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The checkpointers that outlive a process."""
    return _url(request.param, tmp_path, request)


def _threads_in(url: str) -> set[str]:
    """Thread ids stored in a SQLite or Postgres checkpointer, read with a plain driver."""
    query = "SELECT DISTINCT thread_id FROM checkpoints"
    if url.startswith("sqlite:///"):
        with sqlite3.connect(url.removeprefix("sqlite:///")) as conn:
            return {row[0] for row in conn.execute(query)}
    with psycopg.connect(url) as conn:
        return {row[0] for row in conn.execute(query)}


# --- a new process reads what another wrote -------------------------------------------------


def _ask(env: dict[str, str], thread: str, message: str) -> dict:
    result = run_dure("ask", "--agent", "demo", "--thread", thread, "--json", message, env=env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.splitlines()[-1])


def test_a_new_process_continues_the_thread(durable_url: str, tmp_path: Path) -> None:
    env = cli_env(tmp_path / "data", DURE_DATABASE_URL=durable_url)
    assert _ask(env, "T", "내 이름은 민수야")["content"] == "반가워요, 민수님!"
    # A second, independent process: everything it knows comes from the database.
    assert _ask(env, "T", "내 이름이 뭐야?")["content"] == "당신의 이름은 민수입니다."
    assert _ask(env, "other", "내 이름이 뭐야?")["waiting"] is True
    assert _threads_in(durable_url) == {"T", "other"}
    assert not (tmp_path / "data" / "dure.sqlite").exists()  # the URL was used, not the default


def test_a_pending_question_survives_a_restart(durable_url: str, tmp_path: Path) -> None:
    env = cli_env(tmp_path / "data", DURE_DATABASE_URL=durable_url)
    asked = _ask(env, "Q", "내 이름이 뭐야?")
    assert asked["waiting"] is True and asked["content"] == demo_agent.ASK_FOR_NAME
    answered = _ask(env, "Q", "하린")
    assert answered["content"] == "당신의 이름은 하린입니다."
    assert answered["usage"]["llm_calls"] == 1


def test_default_database_is_sqlite_in_the_data_dir(tmp_path: Path) -> None:
    env = cli_env(tmp_path / "data")
    _ask(env, "D", "내 이름은 가온이야")
    assert _ask(env, "D", "내 이름이 뭐야?")["content"] == "당신의 이름은 가온입니다."
    url = f"sqlite:///{tmp_path / 'data' / 'dure.sqlite'}"
    assert _threads_in(url) == {"D"}


# --- in process: one body, every checkpointer ------------------------------------------------


async def _turn(ctx: AgentContext, thread: str, message: str) -> Done:
    events: list[Event] = [e async for e in stream_turn(demo_agent.AGENT, ctx, thread, message)]
    done = events[-1]
    assert isinstance(done, Done)
    return done


def _context(settings: Settings, saver: object, model: ScriptedChatModel) -> AgentContext:
    # A fresh context (and so a freshly built graph) per turn, as a server request would have.
    return AgentContext(
        settings=settings,
        models=ModelSet(settings, model),
        checkpointer=saver,  # type: ignore[arg-type]
        options={"model": model},
    )


async def test_thread_state_through_every_checkpointer(
    checkpointer_url: str, settings: Settings
) -> None:
    model = ScriptedChatModel(demo_agent.respond)
    async with open_checkpointer(checkpointer_url) as saver:
        first = await _turn(_context(settings, saver, model), "T", "제 이름은 보라입니다")
        second = await _turn(_context(settings, saver, model), "T", "내 이름이 뭐야?")
        waiting = await _turn(_context(settings, saver, model), "U", "내 이름이 뭐야?")
        resumed = await _turn(_context(settings, saver, model), "U", "누리")
        graph = demo_agent.AGENT.build(_context(settings, saver, model))
        state = await graph.aget_state({"configurable": {"thread_id": "T"}})
    assert first.content == "반가워요, 보라님!"
    assert second.content == "당신의 이름은 보라입니다."
    assert waiting.waiting and resumed.content == "당신의 이름은 누리입니다."
    assert state.values["name"] == "보라"
    assert [m.type for m in state.values["messages"]] == ["human", "ai", "human", "ai"]
    assert len(model.calls) == 3  # one answer per completed turn, none while waiting


async def test_reopened_checkpointer_keeps_threads(durable_url: str, settings: Settings) -> None:
    model = ScriptedChatModel(demo_agent.respond)
    async with open_checkpointer(durable_url) as saver:
        await _turn(_context(settings, saver, model), "T", "내 이름은 한결이야")
        await _turn(_context(settings, saver, model), "W", "내 이름이 뭐야?")
    async with open_checkpointer(durable_url) as saver:  # closed and opened again
        recalled = await _turn(_context(settings, saver, model), "T", "내 이름이 뭐야?")
        resumed = await _turn(_context(settings, saver, model), "W", "새봄")
    assert recalled.content == "당신의 이름은 한결입니다."
    assert resumed.content == "당신의 이름은 새봄입니다."
