"""Several server processes on one real Postgres (embedded), on loopback: a conversation that
alternates between servers loses nothing; a server killed with SIGKILL mid-answer restarts with
the thread intact up to its last completed turn and the cut-off turn reported."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest

from server_support import ServerProcess, make_key, parse_sse, server_env

pytestmark = pytest.mark.postgres


def post(url: str, path: str, headers: dict[str, str], **body: object) -> dict:
    r = httpx.post(f"{url}{path}", json=body, headers=headers, timeout=60)
    assert r.status_code in (200, 201), r.text
    return r.json()


def view(url: str, tid: str, headers: dict[str, str]) -> dict:
    r = httpx.get(f"{url}/threads/{tid}", headers=headers, timeout=60)
    assert r.status_code == 200, r.text
    return r.json()


def said(state: dict, role: str) -> list[str]:
    return [m["content"] for m in state["messages"] if m["role"] == role]


def test_conversation_alternates_between_two_servers(postgres_url: str, tmp_path: Path) -> None:
    env = server_env(tmp_path / "data", postgres_url)
    headers = make_key(env)
    with ServerProcess(env) as a, ServerProcess(env) as b:
        servers = [a.url, b.url]
        tid = post(a.url, "/threads", headers, agent="qa")["id"]
        questions = [f"{n}번째 질문" for n in range(1, 7)]
        for n, q in enumerate(questions):
            assert post(servers[n % 2], f"/threads/{tid}/messages", headers, content=q)["answer"]
        for url in servers:
            seen = view(url, tid, headers)
            assert [t["status"] for t in seen["turns"]] == ["done"] * 6
            assert said(seen["state"], "user") == questions
            assert len(said(seen["state"], "assistant")) == 6

        # A question asked by one server is answered through the other.
        task = post(b.url, "/threads", headers, agent="slots")["id"]
        asked = post(b.url, f"/threads/{task}/messages", headers, content="예약해 줘")
        assert asked["waiting"] is True
        done = post(a.url, f"/threads/{task}/messages", headers, content="을지로에서 4명")
        assert done["answer"] == "을지로에서 4명 예약을 마쳤습니다."
        assert view(b.url, task, headers)["state"]["slots"]["party_size"] == "4"


def test_sigkill_mid_answer_keeps_the_thread_up_to_its_last_turn(
    postgres_url: str, tmp_path: Path
) -> None:
    env = server_env(tmp_path / "data", postgres_url)
    headers = make_key(env)
    server = ServerProcess(env).start()
    try:
        tid = post(server.url, "/threads", headers, agent="qa")["id"]
        post(server.url, f"/threads/{tid}/messages", headers, content="첫 질문")

        tokens = 0
        with (
            pytest.raises(httpx.HTTPError),
            httpx.stream(
                "POST",
                f"{server.url}/threads/{tid}/messages",
                json={"content": "천천히 두 번째 질문"},
                headers={**headers, "Accept": "text/event-stream"},
                timeout=60,
            ) as r,
        ):
            for event, _ in parse_sse(r.iter_lines()):
                if event == "token":
                    tokens += 1
                    if tokens == 3:
                        server.kill()  # SIGKILL while the answer streams
        assert tokens == 3
    finally:
        server.stop()

    with ServerProcess(env, port=server.port) as restarted:
        seen = view(restarted.url, tid, headers)
        assert [t["status"] for t in seen["turns"]] == ["done", "interrupted"]
        assert seen["turns"][1]["message"] == "천천히 두 번째 질문"
        assert seen["turns"][1]["answer"] is None
        assert said(seen["state"], "user") == ["첫 질문"]  # nothing of the cut-off turn
        assert len(said(seen["state"], "assistant")) == 1

        post(restarted.url, f"/threads/{tid}/messages", headers, content="세 번째 질문")
        seen = view(restarted.url, tid, headers)
        assert [t["status"] for t in seen["turns"]] == ["done", "interrupted", "done"]
        assert said(seen["state"], "user") == ["첫 질문", "세 번째 질문"]
        assert len(said(seen["state"], "assistant")) == 2


def test_two_workers_serve_concurrent_conversations(postgres_url: str, tmp_path: Path) -> None:
    env = server_env(tmp_path / "data", postgres_url)
    headers = make_key(env)

    async def conversation(client: httpx.AsyncClient, n: int) -> list[str]:
        r = await client.post("/threads", json={"agent": "qa"})
        tid = r.json()["id"]
        for turn in range(3):
            r = await client.post(f"/threads/{tid}/messages", json={"content": f"{n}-{turn}"})
            assert r.status_code == 200, r.text
        r = await client.get(f"/threads/{tid}")
        return said(r.json()["state"], "user")

    async def run(url: str) -> list[list[str]]:
        async with httpx.AsyncClient(base_url=url, headers=headers, timeout=60) as client:
            return await asyncio.gather(*(conversation(client, n) for n in range(8)))

    with ServerProcess(env, workers=2) as server:
        results = asyncio.run(run(server.url))
    assert results == [[f"{n}-{t}" for t in range(3)] for n in range(8)]
