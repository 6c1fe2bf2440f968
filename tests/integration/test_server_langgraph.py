"""LangGraph's Agent Protocol through LangChain's own client (`langgraph-sdk`) against a live
loopback server with authentication on: Dure's real agents, a scripted chat model, real keys."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from langchain_core.messages import ToolMessage
from langgraph.pregel.remote import RemoteGraph
from langgraph.types import Command
from langgraph_sdk import get_client
from langgraph_sdk.errors import NotFoundError

from dure.llm import ModelSet
from dure.server import create_app
from dure.server.database import open_storage
from dure.server.keys import create_key
from dure.settings import Settings
from dure.testing import Call, ScriptedChatModel, tool_call
from server_agents import EXTRA_AGENTS
from server_support import live_server, server_settings

SOFTWARE = Path(__file__).resolve().parents[2] / "examples" / "contracts" / "software_dev.md"
REPLY = "안녕하세요! 두레 도우미입니다. 무엇을 도와드릴까요?"
HELLO = {"messages": [{"role": "user", "content": "안녕하세요, 자기소개 부탁해요"}]}
LUNCH = {"messages": [{"role": "user", "content": "을지로에서 2명 점심 먹을 곳 찾아줘"}]}
WHEN = "몇 시에 드실 건가요?"
CODE = "print(6 * 7)"
COMPUTED = "계산 결과는 42입니다."


def scripted(call: Call) -> Any:
    """The task agent's question draft, the assistant's python call and its answer, or REPLY."""
    if call.node == "qa_agent":
        return {"pattern": "ASK", "acknowledgement": "", "question": WHEN}
    if isinstance(call.messages[-1], ToolMessage):
        return COMPUTED
    if "파이썬" in str(call.messages[-1].content):
        return tool_call("python_repl", code=CODE)
    return REPLY


@pytest.fixture
def server(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, list[str]]]:
    """A live server (answers scripted by `scripted`, and the slow test agent `qa`) and two
    API keys."""
    monkeypatch.setenv("DURE_EXTRA_AGENTS", EXTRA_AGENTS)

    async def keys() -> list[str]:
        async with open_storage(settings.effective_database_url) as storage:
            return [(await create_key(storage.db, n))[1] for n in ("a", "b")]

    secrets = asyncio.run(keys())
    model = ScriptedChatModel(scripted)
    with live_server(create_app(settings, models=ModelSet(settings, model))) as url:
        yield f"{url}/langgraph", secrets


def client(url: str, key: str) -> Any:
    return get_client(url=url, api_key=key)


async def test_floor_assistants_thread_stream_state_history(server) -> None:
    url, (key, _) = server
    c = client(url, key)
    found = await c.assistants.search()
    assert {"contract", "assistant", "tasks", "pte"} <= {a["graph_id"] for a in found}
    one = await c.assistants.get("assistant")
    assert one == await c.assistants.get(one["assistant_id"])
    graph = await c.assistants.get_graph("assistant")
    assert {"router", "agent"} <= {n["id"] for n in graph["nodes"]}
    schemas = await c.assistants.get_schemas(one["assistant_id"])
    assert "messages" in schemas["state_schema"]["properties"]

    thread = await c.threads.create()
    parts = [
        p
        async for p in c.runs.stream(
            thread["thread_id"],
            "assistant",
            input=HELLO,
            stream_mode=["values", "messages-tuple", "custom", "updates"],
        )
    ]
    events = [p.event for p in parts]
    assert events[0] == "metadata" and events[-1] == "end"
    assert parts[-1].data["status"] == "success"
    tokens = [p.data for p in parts if p.event == "messages"]
    assert len(tokens) > 1  # token chunks as they decode, not one final message
    assert all(meta["langgraph_node"] == "agent" for _, meta in tokens)
    assert "".join(chunk["content"] for chunk, _ in tokens) == REPLY
    custom = [p.data for p in parts if p.event == "custom"]
    assert any(e["type"] == "thinking" for e in custom)  # Dure's typed events
    assert any("agent" in p.data for p in parts if p.event == "updates")
    final = [p.data for p in parts if p.event == "values"][-1]
    assert [m["type"] for m in final["messages"]] == ["human", "ai"]

    state = await c.threads.get_state(thread["thread_id"])
    messages = state["values"]["messages"]
    assert len(messages) >= 2 and messages[-1]["content"] == REPLY
    assert state["next"] == [] and state["checkpoint"]["checkpoint_id"]
    history = await c.threads.get_history(thread["thread_id"])
    assert history and history[0]["checkpoint"] == state["checkpoint"]
    read = await c.threads.get(thread["thread_id"])
    assert read["status"] == "idle" and read["metadata"]["graph_id"] == "assistant"
    assert read["values"]["messages"][-1]["content"] == REPLY
    runs = await c.runs.list(thread["thread_id"])
    assert [r["status"] for r in runs] == ["success"]


async def test_messages_mode_merges_chunks(server) -> None:
    url, (key, _) = server
    c = client(url, key)
    parts = [p async for p in c.runs.stream(None, "assistant", input=HELLO, stream_mode="messages")]
    kinds = [p.event for p in parts]
    assert kinds.count("messages/metadata") == 1
    partial = [p.data for p in parts if p.event == "messages/partial"]
    assert len(partial) > 1 and partial[-1][0]["content"] == REPLY
    meta = next(p.data for p in parts if p.event == "messages/metadata")
    assert next(iter(meta.values()))["metadata"]["langgraph_node"] == "agent"
    events = [p async for p in c.runs.stream(None, "assistant", input=HELLO, stream_mode="events")]
    kinds = {p.data["event"] for p in events if p.event == "events"}
    assert {"on_chain_start", "on_chat_model_stream", "on_chain_end"} <= kinds


async def test_update_state_moves_the_head(server) -> None:
    url, (key, _) = server
    c = client(url, key)
    tid = (await c.threads.create())["thread_id"]
    await c.runs.wait(tid, "assistant", input=HELLO)
    edited = {"messages": [{"role": "assistant", "content": "고친 답입니다.", "id": "edited"}]}
    written = await c.threads.update_state(tid, edited, as_node="agent")
    state = await c.threads.get_state(tid)
    assert state["checkpoint"] == written["checkpoint"]
    assert state["values"]["messages"][-1]["content"] == "고친 답입니다."
    history = await c.threads.get_history(tid)
    assert history[1]["values"]["messages"][-1]["content"] == REPLY  # the state before it
    again = await c.runs.wait(tid, "assistant", input=HELLO)  # the next run starts from it
    assert [m["content"] for m in again["messages"][-3:]] == [
        "고친 답입니다.",
        HELLO["messages"][0]["content"],
        REPLY,
    ]
    assert [r["status"] for r in await c.runs.list(tid)] == ["success", "success"]


async def test_wait_create_join_and_stateless(server) -> None:
    url, (key, _) = server
    c = client(url, key)
    thread = await c.threads.create(metadata={"project": "두레"})
    values = await c.runs.wait(thread["thread_id"], "assistant", input=HELLO)
    assert values["messages"][-1]["content"] == REPLY
    run = await c.runs.create(thread["thread_id"], "assistant", input=HELLO)
    joined = await c.runs.join(thread["thread_id"], run["run_id"])
    assert len(joined["messages"]) == 4
    assert (await c.runs.get(thread["thread_id"], run["run_id"]))["status"] == "success"
    assert [t["thread_id"] for t in await c.threads.search(metadata={"project": "두레"})] == [
        thread["thread_id"]
    ]
    stateless = await c.runs.wait(None, "assistant", input=HELLO)
    assert stateless["messages"][-1]["content"] == REPLY
    assert len(await c.threads.search()) == 1  # the stateless run's thread is gone
    with pytest.raises(httpx.HTTPStatusError) as missing:  # a document the key does not have
        await c.runs.wait(None, "contract", input=HELLO, context={"contract": "없는-문서"})
    assert missing.value.response.status_code == 404
    assert len(await c.threads.search()) == 1  # and no thread was left behind
    await c.threads.delete(thread["thread_id"])
    with pytest.raises(NotFoundError):
        await c.threads.get(thread["thread_id"])


async def test_another_key_sees_nothing(server) -> None:
    url, (key, other) = server
    mine, theirs = client(url, key), client(url, other)
    thread = await mine.threads.create()
    await mine.runs.wait(thread["thread_id"], "assistant", input=HELLO)
    tid = thread["thread_id"]
    attempts = {
        "get": lambda: theirs.threads.get(tid),
        "get_state": lambda: theirs.threads.get_state(tid),
        "get_history": lambda: theirs.threads.get_history(tid),
        "runs.list": lambda: theirs.runs.list(tid),
        "runs.wait": lambda: theirs.runs.wait(tid, "assistant", input=HELLO),
        "runs.stream": lambda: anext(theirs.runs.stream(tid, "assistant", input=HELLO)),
        "delete": lambda: theirs.threads.delete(tid),
    }
    for name, attempt in attempts.items():
        with pytest.raises(httpx.HTTPStatusError) as refused:  # NotFoundError is one too
            await attempt()
        assert refused.value.response.status_code == 404, name
    assert await theirs.threads.search() == []
    assert (await mine.threads.get(tid))["status"] == "idle"


async def test_a_key_is_required(server) -> None:
    url, _ = server
    async with httpx.AsyncClient() as http:
        response = await http.post(f"{url}/assistants/search", json={})
        assert response.status_code == 401
        assert (await http.get(f"{url}/info")).status_code == 200


async def test_a_task_question_is_an_interrupt_and_a_resume_answers_it(server) -> None:
    url, (key, _) = server
    c = client(url, key)
    thread = await c.threads.create()
    tid = thread["thread_id"]
    parts = [p async for p in c.runs.stream(tid, "tasks", input=LUNCH, stream_mode=["updates"])]
    asked = next(p.data["__interrupt__"] for p in parts if "__interrupt__" in p.data)
    assert asked[0]["value"]["question"].endswith(WHEN) and asked[0]["id"]
    assert parts[-1].event == "end" and parts[-1].data["status"] == "interrupted"
    read = await c.threads.get(tid)
    assert read["status"] == "interrupted"
    assert next(iter(read["interrupts"].values()))[0]["id"] == asked[0]["id"]
    state = await c.threads.get_state(tid)
    assert state["next"] and state["interrupts"][0]["value"]["missing"] == ["datetime"]
    said = [(m["type"], m["content"]) for m in state["values"]["messages"]]  # from the journal
    assert said[0] == ("human", LUNCH["messages"][0]["content"]) and said[1][1].endswith(WHEN)

    values = await c.runs.wait(tid, "tasks", command={"resume": "내일 12시 30분"})
    assert "__interrupt__" not in values
    assert values["conversation"]["slots"]["location"] == "을지로"
    assert (await c.threads.get(tid))["status"] == "idle"
    assert [r["status"] for r in await c.runs.list(tid)] == ["success", "interrupted"]
    history = await c.threads.get_history(tid)
    said = [(m["type"], m["content"]) for m in history[0]["values"]["messages"]]
    assert said[2] == ("human", "내일 12시 30분") and said[3][0] == "ai"
    assert said[3][1].startswith("점심 메뉴 추천 — 을지로, ")  # the answer, by rule


async def test_a_tool_approval_is_an_interrupt(server) -> None:
    url, (key, _) = server
    c = client(url, key)
    tid = (await c.threads.create())["thread_id"]
    ask = {"messages": [{"role": "user", "content": "6 곱하기 7을 파이썬으로 계산해 줘"}]}
    values = await c.runs.wait(tid, "assistant", input=ask)
    request = values["__interrupt__"][0]["value"]
    assert request["kind"] == "approval" and request["tool"] == "python_repl"
    assert request["args"] == {"code": CODE}
    assert (await c.threads.get(tid))["status"] == "interrupted"
    values = await c.runs.wait(tid, "assistant", command={"resume": {"approve": True}})
    assert values["messages"][-1]["content"] == COMPUTED
    assert values["messages"][-2]["type"] == "tool"  # the sandbox ran the approved code


async def test_remote_graph_invokes_and_streams_the_tasks_graph(server) -> None:
    url, (key, _) = server
    remote = RemoteGraph("tasks", url=url, api_key=key)
    config = {"configurable": {"thread_id": "remote-graph-thread"}}
    first = await remote.ainvoke(LUNCH, config)
    assert first["__interrupt__"][0]["value"]["question"].endswith(WHEN)
    assert [m["type"] for m in first["messages"]] == ["human", "ai"]  # closing values
    snapshot = await remote.aget_state(config)
    assert snapshot.next and snapshot.interrupts[0].value["missing"] == ["datetime"]
    chunks = [
        chunk
        async for chunk in remote.astream(
            Command(resume="내일 12시 30분"), config, stream_mode=["custom", "values"]
        )
    ]
    custom = [c.data for c in chunks if c.event == "custom"]  # the SDK's StreamParts
    assert any(e["type"] == "slots" and not e["missing"] for e in custom)
    final = [c.data for c in chunks if c.event == "values"][-1]
    assert final["conversation"]["slots"]["party_size"] == 2
    assert final["messages"][-1]["content"].startswith("점심 메뉴 추천 — 을지로, ")
    assert not (await remote.aget_state(config)).next
    assistant = RemoteGraph("assistant", url=url, api_key=key)
    stateless = await asyncio.to_thread(assistant.invoke, HELLO)  # the sync client too
    assert stateless["messages"][-1]["content"] == REPLY


async def test_cancel_stops_a_run_and_its_stream(server) -> None:
    url, (key, _) = server
    c = client(url, key)
    tid = (await c.threads.create())["thread_id"]
    slow = {"messages": [{"role": "user", "content": "천천히 계약기간은?"}]}
    parts = []
    async for part in c.runs.stream(tid, "qa", input=slow, stream_mode="messages-tuple"):
        parts.append(part)
        if part.event == "messages" and len(parts) == 3:  # mid-answer
            run_id = parts[0].data["run_id"]
            cancelled = await c.runs.cancel(tid, run_id, wait=True)
            assert cancelled["status"] == "interrupted"
    assert [p.event for p in parts[-2:]] == ["error", "end"]
    assert parts[-2].data["error"] == "cancelled" and parts[-1].data["status"] == "interrupted"
    assert (await c.threads.get(tid))["status"] == "idle"
    assert (await c.threads.get_state(tid))["values"] == {}  # rolled back: as before the run
    with pytest.raises(httpx.HTTPStatusError) as ended:
        await c.runs.cancel(tid, run_id)
    assert ended.value.response.status_code == 409


async def test_a_contract_thread_takes_its_document_with_its_first_run(server) -> None:
    url, (key, _) = server
    async with httpx.AsyncClient() as http:
        uploaded = await http.post(
            f"{url.removesuffix('/langgraph')}/documents",
            files={"file": (SOFTWARE.name, SOFTWARE.read_bytes())},
            data={"kind": "contract"},
            headers={"x-api-key": key},
            timeout=120,
        )
    assert uploaded.status_code == 201, uploaded.text
    c = client(url, key)
    tid = (await c.threads.create(thread_id="contract-1", metadata={"graph_id": "contract"}))[
        "thread_id"
    ]
    assert (await c.threads.create(thread_id=tid, if_exists="do_nothing"))["thread_id"] == tid
    ask = {"messages": [{"role": "user", "content": "제5조 내용이 뭐야?"}]}
    values = await c.runs.wait(
        tid, "contract", input=ask, context={"contract": uploaded.json()["id"]}
    )
    assert [s["article_no"] for s in values["sources"]] == ["제5조"]
    # The scripted reply gives none of the named article's words: they are quoted after it.
    answer = values["messages"][-1]["content"]
    assert answer.startswith(f"{REPLY}\n\n조항 원문 — 제5조: “") and "제5조: “1. 선급금" in answer
    with pytest.raises(httpx.HTTPStatusError) as other:  # the thread is the contract agent's
        await c.runs.wait(tid, "assistant", input=HELLO)
    assert other.value.response.status_code == 409


def test_a_browser_ui_on_another_origin_may_call(settings: Settings) -> None:
    """Agent Chat UI runs on its own origin: with it in `server.cors_origins`, a preflight for
    the SDK's key header passes and a run's id (Content-Location) is readable."""
    ui = "http://localhost:3000"
    served = server_settings(settings, cors_origins=[ui])

    async def new_key() -> str:
        async with open_storage(served.effective_database_url) as storage:
            return (await create_key(storage.db, "ui"))[1]

    key = asyncio.run(new_key())
    with live_server(
        create_app(served, models=ModelSet(served, ScriptedChatModel(scripted)))
    ) as url:
        preflight = httpx.options(
            f"{url}/langgraph/runs/wait",
            headers={
                "Origin": ui,
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "x-api-key,content-type",
            },
        )
        assert preflight.status_code == 200
        assert preflight.headers["access-control-allow-origin"] == ui
        ran = httpx.post(
            f"{url}/langgraph/runs/wait",
            json={"assistant_id": "assistant", "input": HELLO},
            headers={"Origin": ui, "x-api-key": key},
            timeout=60,
        )
        assert ran.status_code == 200 and ran.json()["messages"][-1]["content"] == REPLY
        assert "content-location" in ran.headers["access-control-expose-headers"].lower()


async def test_join_stream_reads_a_background_run_from_its_start(server) -> None:
    url, (key, _) = server
    c = client(url, key)
    tid = (await c.threads.create())["thread_id"]
    slow = {"messages": [{"role": "user", "content": "천천히 계약기간은?"}]}
    run = await c.runs.create(tid, "qa", input=slow, stream_mode=["values", "messages-tuple"])
    parts = [p async for p in c.runs.join_stream(tid, run["run_id"])]
    assert parts[0].event == "metadata" and parts[0].data["run_id"] == run["run_id"]
    assert parts[-1].event == "end" and parts[-1].data["status"] == "success"
    chunks = [p.data[0] for p in parts if p.event == "messages"]
    tokens = [m["content"] for m in chunks if m["type"] == "AIMessageChunk"]
    answer = [p.data for p in parts if p.event == "values"][-1]["messages"][-1]["content"]
    assert len(tokens) > 1 and "".join(tokens) == answer
    only = [p async for p in c.runs.join_stream(tid, run["run_id"], stream_mode="values")]
    assert [p.event for p in only] == ["metadata", "end"]  # it has ended: nothing to replay


async def test_the_sdk_may_take_the_servers_own_url(server) -> None:
    url, (key, other) = server
    root = url.removesuffix("/langgraph")
    c = client(root, key)
    assert {"contract", "assistant", "tasks", "pte"} <= {
        a["graph_id"] for a in await c.assistants.search()
    }
    thread = await c.threads.create()
    await c.runs.wait(thread["thread_id"], "assistant", input=HELLO)
    state = await c.threads.get_state(thread["thread_id"])
    assert state["values"]["messages"][-1]["content"] == REPLY
    assert await c.threads.get_history(thread["thread_id"])
    assert (await c.threads.get(thread["thread_id"]))["status"] == "idle"
    with pytest.raises(NotFoundError):
        await client(root, other).threads.get(thread["thread_id"])
    # Dure's own thread API keeps its paths and shapes at the root.
    async with httpx.AsyncClient(base_url=root, headers={"x-api-key": key}) as plain:
        made = await plain.post("/threads", json={"agent": "assistant"})
        assert made.status_code == 201 and made.json()["agent"] == "assistant"
        listed = (await plain.get("/threads")).json()["threads"]
        assert made.json()["id"] in {t["id"] for t in listed}
