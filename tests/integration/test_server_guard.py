"""What guards the server besides keys: loopback only with auth off (peer, Host, Origin — DNS
rebinding and cross-site writes), security headers on the UI and the API, wrong-key throttling."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from dure.server import create_app
from dure.server.app import app_from_env
from dure.settings import Settings, get_settings
from server_support import server_settings

LOCAL = "http://127.0.0.1:8000"


@pytest.fixture
def open_app(settings: Settings) -> Iterator:
    """The app with authentication off, as `make run` starts it."""
    app = create_app(server_settings(settings, auth=False, rate_limit_per_minute=0))

    def client(peer: str = "127.0.0.1", base_url: str = LOCAL) -> TestClient:
        return TestClient(app, base_url=base_url, client=(peer, 50123))

    with client() as first:
        yield client
        assert first.get("/config").status_code == 200


def test_auth_off_answers_this_machine(open_app) -> None:
    c = open_app()
    assert c.get("/config").json()["auth"] is False
    r = c.post("/threads", json={"agent": "assistant"}, headers={"Origin": LOCAL})
    assert r.status_code in (200, 201), r.text
    assert open_app(base_url="http://localhost:8000").get("/config").status_code == 200
    assert open_app(peer="::1", base_url="http://[::1]:8000").get("/config").status_code == 200


def test_auth_off_refuses_other_machines(open_app) -> None:
    r = open_app(peer="203.0.113.7").get("/config")
    assert r.status_code == 403 and "이 컴퓨터에서만" in r.json()["detail"]


def test_auth_off_refuses_a_dns_rebound_host(open_app) -> None:
    """A page on attacker.example that re-points its name at 127.0.0.1 still sends its Host."""
    r = open_app(base_url="http://attacker.example:8000").get("/threads")
    assert r.status_code == 403 and "Host" in r.json()["detail"]


def test_auth_off_refuses_cross_site_writes(open_app) -> None:
    c = open_app()
    evil = c.post("/threads", json={"agent": "assistant"}, headers={"Origin": "https://evil.test"})
    assert evil.status_code == 403 and "다른 사이트" in evil.json()["detail"]
    no_origin = c.post(
        "/threads", json={"agent": "assistant"}, headers={"Sec-Fetch-Site": "cross-site"}
    )
    assert no_origin.status_code == 403
    other_port = c.post(
        "/threads", json={"agent": "assistant"}, headers={"Origin": "http://127.0.0.1:9999"}
    )
    assert other_port.status_code == 403
    assert c.get("/threads", headers={"Origin": "https://evil.test"}).status_code == 200  # a read


def test_the_factory_path_cannot_bypass_loopback_only(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`uvicorn dure.server.app:app_from_env --factory --host 0.0.0.0` with auth off: the host
    setting says loopback, the socket does not; every request is still checked."""
    monkeypatch.setenv("DURE_SERVER__AUTH", "false")
    get_settings.cache_clear()
    app = app_from_env()
    with TestClient(app, base_url="http://10.1.2.3:8000", client=("10.9.8.7", 4000)) as c:
        assert c.get("/config").status_code == 403
        assert c.post("/threads", json={"agent": "assistant"}).status_code == 403


@pytest.mark.parametrize("path", ["/", "/config", "/static/app.js"])
def test_security_headers_everywhere(open_app, path: str) -> None:
    r = open_app().get(path)
    assert r.status_code == 200
    csp = r.headers["content-security-policy"]
    assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp
    assert "unsafe-inline" not in csp
    assert r.headers["x-content-type-options"] == "nosniff"


def test_wrong_keys_are_throttled_per_client(settings: Settings) -> None:
    app = create_app(server_settings(settings, failed_keys_per_minute=3))
    with TestClient(app, client=("198.51.100.1", 1)) as attacker:
        bad = {"Authorization": "Bearer dure_wrong"}
        assert [attacker.get("/threads", headers=bad).status_code for _ in range(3)] == [401] * 3
        r = attacker.get("/threads", headers=bad)
        assert r.status_code == 429 and int(r.headers["Retry-After"]) >= 1
        assert "잘못된 API 키" in r.json()["detail"]
        with TestClient(app, client=("198.51.100.2", 1)) as neighbour:
            assert neighbour.get("/threads", headers=bad).status_code == 401  # not throttled


def test_a_lone_surrogate_is_a_clear_422_not_a_crash(open_app) -> None:
    c = open_app()
    tid = c.post("/threads", json={"agent": "assistant"}).json()["id"]
    raw = {"Content-Type": "application/json"}
    r = c.post(f"/threads/{tid}/messages", content=b'{"content": "ab \\ud800 cd"}', headers=raw)
    assert r.status_code == 422 and "UTF-8" in r.json()["detail"]
    history = (
        b'{"model": "dure-assistant", "messages": [{"role": "user", "content": "\\udfff"},'
        b' {"role": "assistant", "content": "ok"}, {"role": "user", "content": "hi"}]}'
    )
    r = c.post("/v1/chat/completions", content=history, headers=raw)
    assert r.status_code == 422 and "UTF-8" in r.json()["error"]["message"]
    parts = (
        b'{"model": "dure-assistant", "messages": [{"role": "user",'
        b' "content": [{"type": "text", "text": "\\ud83d"}]}]}'
    )
    assert c.post("/v1/chat/completions", content=parts, headers=raw).status_code == 422
    assert c.get(f"/threads/{tid}").json()["turns"] == []  # nothing was started or stored
