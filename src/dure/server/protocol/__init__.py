"""LangGraph's Agent Protocol, the subset `langgraph-sdk` and `RemoteGraph` use, under
`/langgraph`: assistants (one per agent), threads and runs over Dure's own threads, turns and
keys. Clients take `http://<server>/langgraph` as their URL — or the server's own URL
(`SdkAtRoot`)."""

import re
from typing import Any

from fastapi import APIRouter
from starlette.types import ASGIApp, Receive, Scope, Send

import dure
from dure.server.protocol import assistants, control, runs, threads

PREFIX = "/langgraph"

router = APIRouter(prefix=PREFIX)
for _module in (assistants, threads, runs, control):
    router.include_router(_module.router)


@router.get("/info", tags=["langgraph"], summary="서버 정보 (LangGraph)")
async def info() -> dict[str, Any]:
    """What LangGraph's clients check before they connect (no key needed)."""
    return {"version": dure.__version__, "server": "dure", "flags": {"assistants": True}}


#: Paths only the protocol has: served under PREFIX whoever asks.
_PROTOCOL_ONLY = re.compile(
    r"^/(?:assistants|runs)(?:/|$)|^/threads/(?:search|count)$"
    r"|^/threads/[^/]+/(?:state|history|runs|copy)(?:/|$)"
)
#: Paths both APIs have (POST /threads, GET and DELETE /threads/{id}, /info): the protocol's
#: for a client that names itself langgraph-sdk (its User-Agent), Dure's otherwise.
_SHARED = re.compile(r"^/threads(?:/[^/]+)?$|^/info$")


class SdkAtRoot:
    """Lets a `langgraph-sdk` client (and `RemoteGraph`) take the server's own URL: its
    requests are served under PREFIX."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and _for_protocol(scope):
            path = PREFIX + scope["path"]
            scope = {**scope, "path": path, "raw_path": path.encode()}
        await self.app(scope, receive, send)


def _for_protocol(scope: Scope) -> bool:
    path: str = scope["path"]
    if path.startswith(PREFIX + "/") or path == PREFIX:
        return False
    if _PROTOCOL_ONLY.match(path):
        return True
    agent = dict(scope.get("headers") or []).get(b"user-agent", b"")
    return bool(_SHARED.match(path)) and agent.startswith(b"langgraph-sdk")
