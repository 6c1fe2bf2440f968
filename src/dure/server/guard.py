"""What guards the server besides API keys, checked on every request whatever started the app
(`dure serve`, `make run` or uvicorn's factory path):

- `LocalOnly`: with authentication off, only this machine may call — a loopback peer, a
  loopback `Host` (so a DNS-rebound name cannot reach it from a browser) and, for writes, no
  other site's `Origin` (so a page elsewhere cannot POST to it).
- `SecurityHeaders`: a strict Content-Security-Policy (no framing, scripts and styles from the
  server only), `nosniff` and no referrer, on every response.
- `FailedKeys`: a client that keeps presenting wrong keys waits before it may try again (a
  missing key is not counted: the web UI asks for one that way).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from dure.netloc import is_loopback

SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'"
)
_HEADERS = (
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
)
LOCAL_ONLY = "인증이 꺼진 서버는 이 컴퓨터에서만 쓸 수 있습니다"


def _hostname(netloc: str) -> str:
    """`127.0.0.1:8000` → `127.0.0.1`, `[::1]:8000` → `::1`."""
    return urlsplit(f"//{netloc}").hostname or ""


def local_only_refusal(scope: Scope) -> str | None:
    """Why a request cannot be served with authentication off, or None when it may."""
    client = scope.get("client")
    if not client or not is_loopback(str(client[0])):
        return f"{LOCAL_ONLY} (접속한 주소가 이 컴퓨터가 아닙니다)."
    headers = Headers(scope=scope)
    host = headers.get("host", "")
    if not is_loopback(_hostname(host)):
        return f"{LOCAL_ONLY} (Host가 localhost·127.0.0.1·::1이 아닙니다: {host[:80]!r})."
    if scope.get("method", "GET") in SAFE_METHODS:
        return None
    origin = headers.get("origin")
    if origin is not None and urlsplit(origin).netloc != host:
        return f"{LOCAL_ONLY} (다른 사이트에서 보낸 요청입니다: {origin[:80]!r})."
    if origin is None and headers.get("sec-fetch-site") == "cross-site":
        return f"{LOCAL_ONLY} (다른 사이트에서 보낸 요청입니다)."
    return None


class LocalOnly:
    """403 for any request `local_only_refusal` refuses (installed when auth is off)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket") and (why := local_only_refusal(scope)):
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1008})
                return
            await JSONResponse({"detail": why}, status_code=403)(scope, receive, send)
            return
        await self.app(scope, receive, send)


class SecurityHeaders:
    """The headers in `_HEADERS` on every HTTP response (the app's own values win)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                present = {k.lower() for k, _ in message.get("headers", [])}
                extra = [(k, v) for k, v in _HEADERS if k not in present]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, with_headers)


class FailedKeys:
    """Wrong-key attempts per client address: after `limit` within `window` seconds, the
    client waits until the oldest of them leaves the window."""

    def __init__(self, limit: int, window: float = 60.0) -> None:
        self.limit = limit
        self.window = window
        self._seen: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def wait_seconds(self, client: str) -> int:
        """Seconds `client` must wait before presenting a key again (0: it may now)."""
        if self.limit <= 0:
            return 0
        now = time.monotonic()
        with self._lock:
            times = self._seen.get(client)
            if not times:
                return 0
            while times and times[0] <= now - self.window:
                times.popleft()
            if not times:
                del self._seen[client]
                return 0
            return int(times[0] + self.window - now) + 1 if len(times) >= self.limit else 0

    def record(self, client: str) -> None:
        """Note one wrong key from `client`."""
        with self._lock:
            if len(self._seen) > 10_000:  # a flood of addresses must not grow memory forever
                self._seen.clear()
            self._seen.setdefault(client, deque()).append(time.monotonic())
