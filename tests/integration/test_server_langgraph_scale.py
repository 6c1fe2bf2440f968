"""LangGraph's protocol on two server processes over one real Postgres (embedded): a run
started on one is joined, and another cancelled, through the other (`dure serve`
subprocesses, scripted agents)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from langgraph_sdk import get_client

from server_support import ServerProcess, make_key, server_env

pytestmark = pytest.mark.postgres


def test_any_worker_joins_and_cancels_any_run(postgres_url: str, tmp_path: Path) -> None:
    env = server_env(tmp_path / "data", postgres_url)
    key = make_key(env)["Authorization"].removeprefix("Bearer ")
    with ServerProcess(env) as a, ServerProcess(env) as b:

        async def scenario() -> None:
            on_a = get_client(url=f"{a.url}/langgraph", api_key=key)
            on_b = get_client(url=f"{b.url}/langgraph", api_key=key)
            thread = await on_a.threads.create()
            tid = thread["thread_id"]
            ask = {"messages": [{"role": "user", "content": "천천히 계약기간은?"}]}
            run = await on_a.runs.create(tid, "qa", input=ask)
            assert (await on_b.threads.get(tid))["status"] == "busy"
            values = await on_b.runs.join(tid, run["run_id"])
            assert values["messages"][-1]["content"].startswith("**표준계약서 제5조")
            assert (await on_b.runs.get(tid, run["run_id"]))["status"] == "success"
            assert (await on_a.threads.get(tid))["status"] == "idle"

            second = await on_a.runs.create(tid, "qa", input=ask)
            stopped = await on_b.runs.cancel(tid, second["run_id"], wait=True)
            assert stopped["status"] == "interrupted"  # stopped by the worker that ran it
            assert (await on_a.threads.get(tid))["status"] == "idle"
            values = (await on_a.threads.get_state(tid))["values"]
            assert len(values["messages"]) == 2  # as after the first run

        asyncio.run(scenario())
