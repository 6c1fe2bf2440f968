"""Dure as an MCP server, driven by the SDK's own client: `dure mcp` spawned over stdio, and
`/mcp` on a real uvicorn server on loopback with API keys (the scripted model stands in for
the LLM; everything else is real: keys, threads, documents, search, the agents)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from pydantic import AnyUrl

from dure.llm import ModelSet
from dure.server import create_app
from dure.server.database import open_storage
from dure.server.keys import create_key
from dure.settings import Settings
from dure.testing import Call, Reply, ScriptedChatModel
from mcp_agents import ANSWER as CONTRACT_ANSWER
from server_support import ServerProcess, live_server, make_key, server_env

DURE = Path(sys.executable).parent / "dure"
CONTRACT = """# 소프트웨어 개발 용역 계약서

제1조 (목적) 이 계약은 갑이 을에게 소프트웨어 개발을 맡기는 데 필요한 사항을 정한다.

제2조 (계약기간) 계약기간은 2025년 1월 1일부터 2025년 12월 31일까지로 한다.

제3조 (대금의 지급) ① 갑은 을에게 개발 대금 5천만 원을 지급한다.
② 대금은 검수 완료 후 30일 이내에 지급한다.
"""
AGENT_TOOLS = {"ask_contract", "ask_assistant", "ask_tasks", "ask_pte"}
#: Every request's reply must come within this (a lost request fails the test, never hangs it).
REPLY_WITHIN = timedelta(seconds=120)


def text(result: Any) -> str:
    return "\n".join(c.text for c in result.content if c.type == "text")


async def test_dure_mcp_over_stdio_lists_tools_answers_and_keeps_documents(
    tmp_path: Path,
) -> None:
    env = server_env(tmp_path / "data", DURE_SEARCH__STORE="memory")
    env["DURE_EXTRA_AGENTS"] += ",contract=mcp_agents:CONTRACT"
    params = StdioServerParameters(command=str(DURE), args=["mcp"], env=env)
    async with (
        stdio_client(params) as (read, write),
        ClientSession(read, write, REPLY_WITHIN) as session,
    ):
        await session.initialize()
        names = {t.name for t in (await session.list_tools()).tools}
        assert AGENT_TOOLS | {"search", "documents_add", "ask_qa", "ask_slots"} <= names

        added = await session.call_tool(
            "documents_add", {"file_name": "용역계약.md", "content": CONTRACT}
        )
        assert not added.isError, text(added)
        doc = added.structuredContent
        assert doc is not None and doc["info"]["articles"] == 3 and "path" not in doc

        # The contract agent (the scripted model in the LLM's place) cites its article; the
        # thread goes on with its id.
        first = await session.call_tool(
            "ask_contract", {"message": "제2조 내용이 뭐야?", "contract": doc["id"]}
        )
        assert not first.isError, text(first)
        answer = first.structuredContent
        assert answer is not None and answer["answer"] == CONTRACT_ANSWER
        assert [s["article_no"] for s in answer["sources"]] == ["제2조"]
        assert "출처:" in text(first) and "제2조 (계약기간)" in text(first)
        again = await session.call_tool(
            "ask_contract", {"message": "한 번 더 알려줘", "thread_id": answer["thread_id"]}
        )
        assert again.structuredContent["thread_id"] == answer["thread_id"]

        # Documents and their articles are resources of the local owner.
        uris = {str(r.uri) for r in (await session.list_resources()).resources}
        assert f"dure://documents/{doc['id']}" in uris
        article = f"dure://documents/{doc['id']}/articles/%EC%A0%9C2%EC%A1%B0"  # 제2조
        assert article in uris
        read = await session.read_resource(AnyUrl(article))
        assert "2025년 12월 31일" in read.contents[0].text  # type: ignore[union-attr]

        # Search over the contracts collection the document went into, cited by article.
        found = await session.call_tool("search", {"query": "대금 지급", "top_k": 2})
        assert not found.isError, text(found)
        assert found.structuredContent["hits"][0]["article_no"] == "제3조"

        # A path on the server is not a way in: a bare name is all that is kept.
        sneaky = await session.call_tool(
            "documents_add", {"file_name": "../../etc/passwd.txt", "content": "x"}
        )
        assert not sneaky.isError and sneaky.structuredContent["name"] == "passwd.txt"
        bad = await session.call_tool("ask_contract", {"message": "   "})
        assert bad.isError and "빈 메시지" in text(bad)
    # the CLI sees the same documents (the local owner)
    listed = subprocess.run(
        [str(DURE), "documents", "list"], env=env, capture_output=True, text=True, check=True
    )
    assert "용역계약.md" in listed.stdout


def scripted(call: Call) -> Reply:
    """The tasks agent's answer repeats its workers' results; a contract answer cites 제2조."""
    if "작업 결과:" in call.prompt:
        return call.prompt.split("작업 결과:", 1)[1].split("사용자의 요청:", 1)[0].strip()
    return CONTRACT_ANSWER


@pytest.fixture
def served(settings: Settings) -> Iterator[str]:
    """A real uvicorn server on loopback (auth on), the scripted model behind its agents."""
    settings.search.store = "memory"
    settings.server.rate_limit_per_minute = 0
    app = create_app(settings, models=ModelSet(settings, ScriptedChatModel(scripted)))
    with live_server(app) as url:
        yield url


async def new_key(settings: Settings) -> dict[str, str]:
    """A fresh API key, made in the server's database as `dure keys create` makes it."""
    async with open_storage(settings.effective_database_url) as storage:
        _, secret = await create_key(storage.db, "mcp")
    return {"Authorization": f"Bearer {secret}"}


@asynccontextmanager
async def mcp_over_http(url: str, headers: dict[str, str]) -> AsyncIterator[ClientSession]:
    async with (
        httpx.AsyncClient(headers=headers, timeout=60) as http,
        streamable_http_client(f"{url}/mcp", http_client=http) as (read, write, _),
        ClientSession(read, write, REPLY_WITHIN) as session,
    ):
        await session.initialize()
        yield session


async def test_mcp_over_http_answers_with_the_cited_article_per_key(
    served: str, settings: Settings
) -> None:
    alice, bob = await new_key(settings), await new_key(settings)
    async with mcp_over_http(served, alice) as session:
        names = {t.name for t in (await session.list_tools()).tools}
        assert AGENT_TOOLS | {"search", "documents_add"} <= names
        added = await session.call_tool(
            "documents_add", {"file_name": "용역계약.md", "content": CONTRACT}
        )
        doc_id = added.structuredContent["id"]
        steps: list[str] = []

        async def heard(progress: float, total: float | None, message: str | None) -> None:
            steps.append(message or "")

        asked = await session.call_tool(
            "ask_contract",
            {"message": "제2조 내용이 뭐야?", "contract": doc_id},
            progress_callback=heard,
        )
        assert not asked.isError, text(asked)
        answer = asked.structuredContent
        assert answer["answer"] == CONTRACT_ANSWER
        assert [s["article_no"] for s in answer["sources"]] == ["제2조"]
        assert "계약기간" in text(asked) and "thread_id=" in text(asked)
        # The turn's steps reached the client as progress while it ran (it asked for them).
        assert any(s.startswith("thinking: ") for s in steps)
        assert any(s.startswith("sources: ") and "제2조 (계약기간)" in s for s in steps)
        thread = answer["thread_id"]
        # The tasks agent's question is the tool's answer; the reply goes on the same thread.
        booking = await session.call_tool("ask_tasks", {"message": "내일 오후 3시 회의실 4명"})
        assert booking.structuredContent["waiting"] is True
        done = await session.call_tool(
            "ask_tasks",
            {"message": "네", "thread_id": booking.structuredContent["thread_id"]},
        )
        assert "예약 완료" in done.structuredContent["answer"]
        assert not done.structuredContent["waiting"]
    async with mcp_over_http(served, bob) as session:  # another key sees none of it
        other = await session.call_tool(
            "ask_contract", {"message": "제2조는?", "thread_id": thread}
        )
        assert other.isError and "찾을 수 없습니다" in text(other)
        assert (await session.list_resources()).resources == []
        searched = await session.call_tool("search", {"query": "계약기간"})
        assert searched.isError and "문서가 없습니다" in text(searched)
        borrowed = await session.call_tool(
            "ask_contract", {"message": "제2조는?", "contract": doc_id}
        )
        assert borrowed.isError and "찾을 수 없습니다" in text(borrowed)
    # Without a key, or with a wrong one, the endpoint is closed as the rest of the API is.
    assert httpx.post(f"{served}/mcp", json={}).status_code == 401
    wrong = {"Authorization": "Bearer dure_wrong"}
    assert httpx.post(f"{served}/mcp", json={}, headers=wrong).status_code == 401


async def test_mcp_on_a_server_with_two_workers(tmp_path: Path) -> None:
    """Stateless MCP: one client session's requests may land on either worker process."""
    env = server_env(tmp_path / "data", DURE_SEARCH__STORE="memory")
    headers = make_key(env)
    with ServerProcess(env, workers=2) as server:
        async with mcp_over_http(server.url, headers) as session:
            added = await session.call_tool(
                "documents_add", {"file_name": "용역계약.md", "content": CONTRACT}
            )
            assert not added.isError, text(added)
            thread = None
            for message in ("계약기간 알려줘", "대금은?", "검수는?", "고마워"):
                args = {"message": message, **({"thread_id": thread} if thread else {})}
                answered = await session.call_tool("ask_qa", args)
                assert not answered.isError, text(answered)
                thread = answered.structuredContent["thread_id"]
                assert answered.structuredContent["sources"]
            listed = (await session.list_resources()).resources
            assert any(r.name == "용역계약.md" for r in listed)


def test_dure_mcp_keeps_stdout_for_the_protocol(tmp_path: Path) -> None:
    """Whatever else writes to stdout in `dure mcp` (the stand-in agent prints, and writes to
    descriptor 1 as C code would) goes to stderr: every stdout line is a JSON-RPC message."""
    env = server_env(tmp_path / "data", DURE_SEARCH__STORE="memory")
    env["DURE_EXTRA_AGENTS"] += ",contract=mcp_agents:CONTRACT"
    hello = {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "0"},
    }
    call = {"name": "ask_contract", "arguments": {"message": "제2조 내용이 뭐야?"}}
    sent = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call},
    ]
    proc = subprocess.Popen(
        [str(DURE), "mcp"],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write("".join(json.dumps(m) + "\n" for m in sent))
    proc.stdin.flush()
    answered = []
    for line in proc.stdout:
        answered.append(json.loads(line))  # a stray line here would not parse
        if answered[-1].get("id") == 2:
            break
    _, errors = proc.communicate(timeout=60)  # closes stdin: the server ends
    assert [m.get("id") for m in answered if "id" in m][-1] == 2
    assert "chatty library output" in errors and "chatty C code output" in errors
