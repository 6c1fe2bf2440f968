"""Helpers for server tests: settings, an in-process live server, server subprocesses, SSE."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import uvicorn

from dure.settings import Settings
from server_agents import EXTRA_AGENTS

TESTS = Path(__file__).parent
DURE = Path(sys.executable).parent / "dure"


def server_settings(base: Settings, **server: Any) -> Settings:
    """`base` with some `server.*` settings replaced."""
    return base.model_copy(update={"server": base.server.model_copy(update=server)})


def free_port() -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_ready(url: str, timeout: float = 60.0, proc: subprocess.Popen | None = None) -> None:
    """Wait until `url/readyz` answers 200."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"server exited with {proc.returncode}")
        try:
            if httpx.get(f"{url}/readyz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise TimeoutError(f"{url} not ready")


@contextmanager
def live_server(app: Any) -> Iterator[str]:
    """Serve `app` on a loopback port in a thread; yields its base URL."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{port}"
    try:
        wait_ready(url)
        yield url
    finally:
        server.should_exit = True
        thread.join(timeout=30)


def server_env(data_dir: Path, database_url: str | None = None, **extra: str) -> dict[str, str]:
    """The environment of a `dure serve` subprocess running the scripted test agents."""
    env = {
        **os.environ,
        "DURE_DATA_DIR": str(data_dir),
        "DURE_ENABLE_CACHE": "false",
        "DURE_EXTRA_AGENTS": EXTRA_AGENTS,
        "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")]),
        **extra,
    }
    if database_url:
        env["DURE_DATABASE_URL"] = database_url
    return env


def make_key(env: dict[str, str]) -> dict[str, str]:
    """`dure keys create` in a subprocess; headers carrying the new key."""
    out = subprocess.run(
        [str(DURE), "keys", "create", "scale"], env=env, capture_output=True, text=True, check=True
    )
    return {"Authorization": f"Bearer {out.stdout.strip().splitlines()[-1]}"}


class ServerProcess:
    """`dure serve` in a subprocess on loopback (start, kill -9, restart)."""

    def __init__(self, env: dict[str, str], port: int | None = None, workers: int = 1) -> None:
        self.env = env
        self.port = port or free_port()
        self.log = Path(env["DURE_DATA_DIR"]) / f"server-{self.port}.log"
        self.workers = workers
        self.proc: subprocess.Popen[bytes] | None = None
        self.url = f"http://127.0.0.1:{self.port}"

    def start(self) -> ServerProcess:
        """Start and wait until ready."""
        args = [str(DURE), "serve", "--port", str(self.port), "--workers", str(self.workers)]
        self.log.parent.mkdir(parents=True, exist_ok=True)
        # Its own process group: a kill reaches uvicorn's worker processes too.
        self.proc = subprocess.Popen(
            args,
            env=self.env,
            stdout=subprocess.DEVNULL,
            stderr=self.log.open("ab"),
            start_new_session=True,
        )
        try:
            wait_ready(self.url, proc=self.proc)
        except Exception:
            self.stop()
            raise
        return self

    def kill(self) -> None:
        """SIGKILL the server (and its workers): no cleanup runs."""
        assert self.proc is not None
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> str:
        """Stop gracefully; returns what the server logged."""
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def __enter__(self) -> ServerProcess:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def sse_message(
    url: str, thread: str, text: str, timeout: float = 30, headers: dict[str, str] | None = None
) -> Any:
    """Post a message to a live server and take its answer as SSE (a context manager around
    the streamed `httpx` response)."""
    return httpx.stream(
        "POST",
        f"{url}/threads/{thread}/messages",
        json={"content": text},
        headers={**(headers or {}), "Accept": "text/event-stream"},
        timeout=timeout,
    )


def parse_sse(lines: Iterable[str]) -> Iterator[tuple[str | None, Any]]:
    """(event name, JSON data) pairs from SSE lines; comments skipped."""
    event: str | None = None
    for line in lines:
        if line.startswith(":"):
            continue
        if line.startswith("event:"):
            event = line.split(":", 1)[1].strip()
        elif line.startswith("data:"):
            data = line.split(":", 1)[1].strip()
            yield event, data if data == "[DONE]" else json.loads(data)
            event = None
