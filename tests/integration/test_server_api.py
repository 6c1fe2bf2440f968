"""The HTTP API in-process (FastAPI TestClient, SQLite in a fresh data dir, scripted agents):
auth, isolation between keys, limits, SSE and JSON answers, history, questions, rollback."""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from dure.errors import DureError
from dure.server import create_app
from dure.server.keys import create_key
from dure.settings import Settings
from server_agents import EXTRA_AGENTS, FAIL_WORD
from server_support import parse_sse, server_settings

CONTRACT = """# 소프트웨어 개발 용역 계약서

제1조 (목적) 이 계약은 갑이 을에게 소프트웨어 개발을 맡기는 데 필요한 사항을 정한다.

제2조 (계약기간) 계약기간은 2025년 1월 1일부터 2025년 12월 31일까지로 한다.

제3조 (대금의 지급) ① 갑은 을에게 개발 대금 5천만 원을 지급한다.
② 대금은 검수 완료 후 30일 이내에 지급한다.
"""


@pytest.fixture
def make_client(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Iterator[callable]:  # type: ignore[valid-type]
    """Build a TestClient for the app with some `server.*` settings."""
    monkeypatch.setenv("DURE_EXTRA_AGENTS", EXTRA_AGENTS)
    clients: list[TestClient] = []

    def make(**server: object) -> TestClient:
        server.setdefault("rate_limit_per_minute", 0)
        client = TestClient(create_app(server_settings(settings, **server)))
        client.__enter__()
        clients.append(client)
        return client

    yield make
    for c in clients:
        c.__exit__(None, None, None)


def new_key(client: TestClient, name: str = "test") -> dict[str, str]:
    """Headers with a fresh API key."""
    db = client.app.state.turns.store.db
    _, secret = client.portal.call(create_key, db, name)
    return {"Authorization": f"Bearer {secret}"}


def stream(client: TestClient, thread_id: str, content: str, headers: dict[str, str]) -> list:
    """Post a message as SSE; the (event, data) pairs."""
    with client.stream(
        "POST",
        f"/threads/{thread_id}/messages",
        json={"content": content},
        headers={**headers, "Accept": "text/event-stream"},
    ) as r:
        assert r.status_code == 200, r.read()
        assert r.headers["content-type"].startswith("text/event-stream")
        return list(parse_sse(r.iter_lines()))


def test_auth_required(make_client) -> None:
    client = make_client()
    assert client.get("/healthz").json() == {"status": "ok"}
    assert client.get("/config").json()["auth"] is True
    r = client.get("/threads")
    assert r.status_code == 401
    assert "API 키가 필요합니다" in r.json()["detail"]
    assert client.get("/threads", headers={"Authorization": "Bearer nope"}).status_code == 401
    assert client.get("/threads", headers=new_key(client)).json() == {"threads": []}


def test_revoked_key_is_refused(make_client) -> None:
    client = make_client()
    headers = new_key(client)
    db = client.app.state.turns.store.db
    from dure.server.keys import list_keys, revoke_key

    (info,) = client.portal.call(list_keys, db)
    client.portal.call(revoke_key, db, info.id)
    assert client.get("/threads", headers=headers).status_code == 401


def test_threads_are_private_to_their_key(make_client) -> None:
    client = make_client()
    alice, bob = new_key(client, "alice"), new_key(client, "bob")
    thread = client.post("/threads", json={"agent": "qa"}, headers=alice).json()
    doc = client.post(
        "/documents", files={"file": ("c.md", CONTRACT.encode())}, headers=alice
    ).json()

    tid = thread["id"]
    assert client.get(f"/threads/{tid}", headers=bob).status_code == 404
    assert (
        client.post(f"/threads/{tid}/messages", json={"content": "안녕"}, headers=bob).status_code
        == 404
    )
    assert client.delete(f"/threads/{tid}", headers=bob).status_code == 404
    assert client.get("/threads", headers=bob).json() == {"threads": []}
    assert client.get("/documents", headers=bob).json() == {"documents": []}
    # Bob cannot bind Alice's document to a thread of his either.
    r = client.post("/threads", json={"agent": "qa", "contract": doc["id"]}, headers=bob)
    assert r.status_code == 404
    assert client.get(f"/threads/{tid}", headers=alice).status_code == 200


def test_sse_streams_typed_events_and_the_answer(make_client) -> None:
    client = make_client()
    headers = new_key(client)
    tid = client.post("/threads", json={"agent": "qa"}, headers=headers).json()["id"]
    events = stream(client, tid, "계약기간은 얼마나 되나요?", headers)
    names = [name for name, _ in events]
    assert names[0] == "thinking" and names[-1] == "done"
    assert {"planning", "tool_selected", "tool_result", "evaluation_result", "sources"} <= set(
        names
    )
    assert all(data["type"] == name for name, data in events)
    tokens = [d["content"] for n, d in events if n == "token"]
    done = events[-1][1]
    assert len(tokens) > 3 and "".join(tokens) == done["content"]
    assert done["sources"][0]["article_no"] == "제5조"
    audit = next(d for n, d in events if n == "tool_result")
    assert audit["step"]["status"] == "success"


def test_json_answer_and_history(make_client) -> None:
    client = make_client()
    headers = new_key(client)
    tid = client.post("/threads", json={"agent": "qa"}, headers=headers).json()["id"]
    first = client.post(
        f"/threads/{tid}/messages", json={"content": "계약기간은?"}, headers=headers
    ).json()
    assert first["answer"].startswith("**표준계약서 제5조 (계약기간)**")
    assert first["sources"][0]["doc"] == "표준계약서"
    assert [e["type"] for e in first["events"]][0] == "thinking"
    client.post(f"/threads/{tid}/messages", json={"content": "해지는?"}, headers=headers)

    view = client.get(f"/threads/{tid}", headers=headers).json()
    assert view["title"] == "계약기간은?"
    assert [t["status"] for t in view["turns"]] == ["done", "done"]
    assert [t["message"] for t in view["turns"]] == ["계약기간은?", "해지는?"]
    assert view["turns"][0]["sources"][0]["article_no"] == "제5조"
    assert any(e["type"] == "tool_result" for e in view["turns"][0]["events"])
    roles = [m["role"] for m in view["state"]["messages"]]
    assert roles == ["user", "assistant", "user", "assistant"]
    assert client.get("/threads", headers=headers).json()["threads"][0]["id"] == tid

    db = client.app.state.turns.store.db

    def rows(table: str) -> int:
        found = client.portal.call(
            db.fetchone, f"SELECT count(*) AS n FROM {table} WHERE thread_id = ?", (tid,)
        )
        return int(found["n"])

    assert rows("checkpoints") > 0 and rows("dure_turns") == 2
    assert client.delete(f"/threads/{tid}", headers=headers).status_code == 204
    assert client.get(f"/threads/{tid}", headers=headers).status_code == 404
    assert [rows(t) for t in ("checkpoints", "writes", "dure_turns")] == [0, 0, 0]  # purged


def test_question_then_answer_completes_the_task(make_client) -> None:
    client = make_client()
    headers = new_key(client)
    tid = client.post("/threads", json={"agent": "slots"}, headers=headers).json()["id"]
    events = stream(client, tid, "점심 예약해 줘", headers)
    slots = next(d for n, d in events if n == "slots")
    assert slots["missing"] == ["location", "party_size"]
    assert any(n == "question" for n, _ in events)
    assert events[-1][1]["waiting"] is True
    assert client.get(f"/threads/{tid}", headers=headers).json()["state"]["question"] == (
        "장소, 인원을(를) 알려 주세요."
    )

    events = stream(client, tid, "을지로에서 2명", headers)
    assert events[-1][1]["content"] == "을지로에서 2명 예약을 마쳤습니다."
    assert events[-1][1]["waiting"] is False
    state = client.get(f"/threads/{tid}", headers=headers).json()["state"]
    assert state["slots"] == {"location": "을지로", "party_size": "2"}
    assert state["question"] is None


def test_failed_turn_leaves_the_thread_as_before(make_client) -> None:
    client = make_client()
    headers = new_key(client)
    tid = client.post("/threads", json={"agent": "qa"}, headers=headers).json()["id"]
    client.post(f"/threads/{tid}/messages", json={"content": "첫 질문"}, headers=headers)
    failed = client.post(
        f"/threads/{tid}/messages", json={"content": f"{FAIL_WORD} 질문"}, headers=headers
    ).json()
    assert any(e["type"] == "error" for e in failed["events"])
    client.post(f"/threads/{tid}/messages", json={"content": "셋째 질문"}, headers=headers)
    view = client.get(f"/threads/{tid}", headers=headers).json()
    assert [t["status"] for t in view["turns"]] == ["done", "failed", "done"]
    users = [m["content"] for m in view["state"]["messages"] if m["role"] == "user"]
    assert users == ["첫 질문", "셋째 질문"]


def test_failed_reply_to_a_question_does_not_stick(make_client) -> None:
    """A reply that failed half-way must not be replayed when the user answers again."""
    client = make_client()
    headers = new_key(client)
    tid = client.post("/threads", json={"agent": "slots"}, headers=headers).json()["id"]
    stream(client, tid, "예약해 줘", headers)
    failed = stream(client, tid, f"{FAIL_WORD}에서 2명", headers)
    assert any(n == "error" for n, _ in failed)
    again = stream(client, tid, "을지로에서 3명", headers)
    assert again[-1][1]["content"] == "을지로에서 3명 예약을 마쳤습니다."


def test_contract_upload_and_article_lookup(make_client) -> None:
    client = make_client()
    headers = new_key(client)
    doc = client.post(
        "/documents",
        files={"file": ("용역계약.md", CONTRACT.encode())},
        data={"kind": "contract"},
        headers=headers,
    )
    assert doc.status_code == 201, doc.text
    doc = doc.json()
    assert doc["info"]["articles"] == 3 and "path" not in doc
    thread = client.post(
        "/threads", json={"agent": "qa", "contract": doc["id"]}, headers=headers
    ).json()
    answer = client.post(
        f"/threads/{thread['id']}/messages", json={"content": "제3조 내용은?"}, headers=headers
    ).json()
    source = answer["sources"][0]
    assert (source["doc"], source["article_no"]) == ("용역계약.md", "제3조")
    article = client.get(
        f"/threads/{thread['id']}/article",
        params={"doc": source["doc"], "no": source["article_no"]},
        headers=headers,
    ).json()
    assert article["article_title"] == "대금의 지급"
    assert "30일 이내" in article["text"]
    missing = client.get(
        f"/threads/{thread['id']}/article", params={"doc": "x", "no": "제9조"}, headers=headers
    )
    assert missing.status_code == 404


def test_size_and_type_limits(make_client) -> None:
    client = make_client(max_upload_bytes=2_000, max_request_bytes=1_000)
    headers = new_key(client)
    big = client.post("/documents", files={"file": ("big.md", b"x" * 5_000)}, headers=headers)
    assert big.status_code == 413
    assert "너무 큽니다" in big.json()["detail"]
    r = client.post("/threads", json={"agent": "qa", "title": "x" * 5_000}, headers=headers)
    assert r.status_code == 413
    exe = client.post("/documents", files={"file": ("run.exe", b"MZ")}, headers=headers)
    assert exe.status_code == 415
    assert ".md" in exe.json()["detail"]
    bad = client.post("/documents", files={"file": ("bad.pdf", b"not a pdf")}, headers=headers)
    assert bad.status_code == 400
    assert client.get("/documents", headers=headers).json() == {"documents": []}


def test_malformed_json_is_422_with_a_clear_message(make_client) -> None:
    client = make_client()
    headers = {**new_key(client), "Content-Type": "application/json"}
    r = client.post("/threads", content=b'{"agent": "qa",', headers=headers)
    assert r.status_code == 422
    assert "올바른 JSON이 아닙니다" in r.json()["detail"]
    r = client.post("/threads", json={"title": "에이전트 없음"}, headers=headers)
    assert r.status_code == 422
    assert "agent" in r.json()["detail"]
    r = client.post("/threads", json={"agent": "없는에이전트"}, headers=headers)
    assert r.status_code == 400
    assert "알 수 없는 에이전트" in r.json()["detail"]
    tid = client.post("/threads", json={"agent": "qa"}, headers=headers).json()["id"]
    r = client.post(f"/threads/{tid}/messages", json={"content": "  "}, headers=headers)
    assert r.status_code == 422


def test_rate_limit_per_key(make_client) -> None:
    client = make_client(rate_limit_per_minute=3)
    alice, bob = new_key(client, "alice"), new_key(client, "bob")
    codes = [client.get("/threads", headers=alice).status_code for _ in range(4)]
    if codes[-1] == 200:  # the minute turned over between requests: one more try
        codes = [client.get("/threads", headers=alice).status_code for _ in range(4)]
    assert codes[-1] == 429
    limited = client.get("/threads", headers=alice)
    assert limited.status_code == 429 and int(limited.headers["Retry-After"]) <= 60
    assert client.get("/threads", headers=bob).status_code == 200


@contextmanager
def answering(client: TestClient, tid: str, headers: dict[str, str]) -> Iterator[None]:
    """While thread `tid` streams a slow answer (its first token is out), then to its end."""
    with client.stream(
        "POST",
        f"/threads/{tid}/messages",
        json={"content": "천천히 알려 줘"},
        headers={**headers, "Accept": "text/event-stream"},
    ) as r:
        lines = r.iter_lines()
        next(line for line in lines if line.startswith("event: token"))
        yield
        list(lines)


def test_a_process_at_its_turn_cap_answers_503_with_retry_after(make_client) -> None:
    client = make_client(max_concurrent_turns=1)
    headers = new_key(client)
    first, second = (
        client.post("/threads", json={"agent": "qa"}, headers=headers).json()["id"]
        for _ in range(2)
    )
    with answering(client, first, headers):
        busy = client.post(f"/threads/{second}/messages", json={"content": "안녕"}, headers=headers)
        assert busy.status_code == 503 and int(busy.headers["Retry-After"]) >= 1
        assert "다시 보내 주세요" in busy.json()["detail"]
    assert client.get(f"/threads/{second}", headers=headers).json()["turns"] == []  # nothing lost
    again = client.post(f"/threads/{second}/messages", json={"content": "안녕"}, headers=headers)
    assert again.status_code == 200


def test_second_message_while_answering_is_409(make_client) -> None:
    client = make_client()
    headers = new_key(client)
    tid = client.post("/threads", json={"agent": "qa"}, headers=headers).json()["id"]
    with answering(client, tid, headers):
        busy = client.post(f"/threads/{tid}/messages", json={"content": "또"}, headers=headers)
        assert busy.status_code == 409
        assert "답하는 중" in busy.json()["detail"]
    view = client.get(f"/threads/{tid}", headers=headers).json()
    assert [t["status"] for t in view["turns"]] == ["done"]


def test_auth_off_only_on_loopback(settings: Settings, make_client) -> None:
    with pytest.raises(DureError, match="127.0.0.1"):
        create_app(server_settings(settings, auth=False, host="0.0.0.0"))
    app = create_app(server_settings(settings, auth=False, host="::1"))
    with TestClient(app, base_url="http://[::1]:8000", client=("::1", 1)) as client:
        assert client.get("/config").json()["auth"] is False
        tid = client.post("/threads", json={"agent": "assistant"}).json()["id"]
        assert client.get(f"/threads/{tid}").status_code == 200


def test_cors_is_off_by_default(make_client) -> None:
    client = make_client()
    r = client.options(
        "/threads",
        headers={"Origin": "https://evil.example", "Access-Control-Request-Method": "GET"},
    )
    assert "access-control-allow-origin" not in r.headers


def test_no_secret_or_message_text_in_logs(make_client, caplog: pytest.LogCaptureFixture) -> None:
    client = make_client()
    headers = new_key(client)
    secret = headers["Authorization"].split()[1]
    caplog.set_level(logging.INFO)
    tid = client.post("/threads", json={"agent": "qa"}, headers=headers).json()["id"]
    client.post(f"/threads/{tid}/messages", json={"content": "비밀스러운질문"}, headers=headers)
    client.post(f"/threads/{tid}/messages", json={"content": f"{FAIL_WORD} 비밀"}, headers=headers)
    logged = "\n".join(r.getMessage() for r in caplog.records)
    assert tid in logged  # turns are logged...
    assert "비밀" not in logged and secret not in logged  # ...without their text or the key


def test_web_ui_is_served(make_client) -> None:
    client = make_client()
    page = client.get("/")
    assert page.status_code == 200 and "두레" in page.text
    for asset in ("app.js", "markdown.js", "style.css"):
        assert client.get(f"/static/{asset}").status_code == 200
    assert client.get("/openapi.json").json()["info"]["title"] == "두레 Dure"


def test_upload_reads_a_large_file_in_full(make_client, tmp_path: Path) -> None:
    client = make_client()
    headers = new_key(client)
    body = CONTRACT + "\n".join(f"제{n}조 (조항{n}) 내용 {n}." for n in range(4, 200))
    r = client.post(
        "/documents", files={"file": ("long.md", io.BytesIO(body.encode()))}, headers=headers
    )
    assert r.status_code == 201
    assert r.json()["info"]["articles"] == 199


def test_upload_into_a_private_collection(make_client) -> None:
    from dure.retrieval import open_collection
    from dure.server.documents import collection_for

    client = make_client()
    alice = new_key(client, "alice")
    r = client.post(
        "/documents",
        files={"file": ("용역계약.md", CONTRACT.encode())},
        data={"kind": "contract", "collection": "계약"},
        headers=alice,
    )
    assert r.status_code == 201, r.text
    owner = client.portal.call(
        client.app.state.turns.store.db.fetchone, "SELECT owner FROM dure_documents", ()
    )["owner"]
    name = collection_for(owner, "계약")
    assert name != "계약"  # each key's collections are its own
    settings = client.app.state.settings
    docs = open_collection(name, settings).documents()
    assert [d.kind for d in docs] == ["contract"]
    bad = client.post(
        "/documents",
        files={"file": ("x.md", CONTRACT.encode())},
        data={"collection": "../밖"},
        headers=alice,
    )
    assert bad.status_code == 400


def test_an_added_document_is_indexed_for_the_assistant_of_its_key_only(make_client) -> None:
    """A `document` upload with no collection goes into the key's own `documents`, which is
    what that key's threads hand the assistant to search; another key's threads do not."""
    from dure.retrieval import has_documents
    from dure.server.documents import agent_options, collection_for
    from dure.server.store import Thread

    client = make_client()
    alice, bob = new_key(client, "alice"), new_key(client, "bob")
    r = client.post(
        "/documents",
        files={"file": ("안내서.md", "# 휴가\n연차는 15일이다.".encode())},
        data={"kind": "document"},
        headers=alice,
    )
    assert r.status_code == 201, r.text
    assert r.json()["collection"] == "documents"
    store = client.app.state.turns.store
    owner = client.portal.call(store.db.fetchone, "SELECT owner FROM dure_documents", ())["owner"]
    settings = client.app.state.settings
    assert has_documents(collection_for(owner, "documents"), settings)
    assert not has_documents("documents", settings)  # nothing in the shared, unkeyed one
    for headers, found in ((alice, True), (bob, False)):
        tid = client.post("/threads", json={"agent": "assistant"}, headers=headers).json()["id"]
        row = client.portal.call(
            store.db.fetchone, "SELECT owner FROM dure_threads WHERE id = ?", (tid,)
        )
        thread = client.portal.call(store.thread, row["owner"], tid)
        assert isinstance(thread, Thread)
        options = client.portal.call(agent_options, store, thread)
        assert has_documents(options["documents_collection"], settings) is found


def test_a_deleted_document_is_no_longer_searchable(make_client) -> None:
    """Deleting a document takes its text out of the key's collections (keyword and vector
    entries) in this process and on disk, not only its row and file."""
    from dure.retrieval import open_collection, shared_collection
    from dure.server.documents import collection_for

    client = make_client()
    alice = new_key(client, "alice")
    handbook = "# 출장\n국내 출장 일비는 하루 5만원이다.".encode()
    doc = client.post(
        "/documents",
        files={"file": ("출장.md", handbook)},
        data={"kind": "document"},
        headers=alice,
    ).json()
    store = client.app.state.turns.store
    owner = client.portal.call(store.db.fetchone, "SELECT owner FROM dure_documents", ())["owner"]
    settings = client.app.state.settings
    name = collection_for(owner, "documents")
    live = shared_collection(name, settings)
    assert live.search("출장 일비", 3)
    assert client.delete(f"/documents/{doc['id']}", headers=alice).status_code == 204
    assert live.search("출장 일비", 3) == []
    assert open_collection(name, settings).documents() == []  # and on disk


def test_thread_whose_document_was_deleted_says_so(make_client) -> None:
    client = make_client()
    headers = new_key(client)
    doc = client.post("/documents", files={"file": ("c.md", CONTRACT.encode())}, headers=headers)
    doc_id = doc.json()["id"]
    tid = client.post("/threads", json={"agent": "qa", "contract": doc_id}, headers=headers)
    tid = tid.json()["id"]
    assert client.delete(f"/documents/{doc_id}", headers=headers).status_code == 204
    r = client.post(f"/threads/{tid}/messages", json={"content": "제1조는?"}, headers=headers)
    assert r.status_code == 404
    assert "문서가 삭제되었습니다" in r.json()["detail"]


def test_done_means_saved_the_next_message_is_accepted_at_once(
    make_client, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`done` is sent only once the turn is journaled: a client may send its next message the
    moment it sees `done` (to any worker) without being told the thread is busy."""
    from dure.server.store import Store

    journal = Store.finish_turn

    async def slow_journal(self: Store, turn: object) -> None:
        await asyncio.sleep(0.5)  # a slow database: the window a client could fall into
        await journal(self, turn)

    monkeypatch.setattr(Store, "finish_turn", slow_journal)
    client = make_client()
    headers = new_key(client)
    tid = client.post("/threads", json={"agent": "qa"}, headers=headers).json()["id"]
    with client.stream(
        "POST",
        f"/threads/{tid}/messages",
        json={"content": "첫 질문"},
        headers={**headers, "Accept": "text/event-stream"},
    ) as r:
        for event, _ in parse_sse(r.iter_lines()):
            if event == "done":  # the stream is still open here
                nxt = client.post(
                    f"/threads/{tid}/messages", json={"content": "바로 다음"}, headers=headers
                )
                assert nxt.status_code == 200, nxt.text
    statuses = [t["status"] for t in client.get(f"/threads/{tid}", headers=headers).json()["turns"]]
    assert statuses == ["done", "done"]
