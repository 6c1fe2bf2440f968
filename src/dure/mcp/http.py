"""`/mcp` on `dure serve`: Dure's MCP server over streamable HTTP, behind the same API keys,
rate limit and per-key isolation as every other route (`dure.server.deps.get_owner`).

Stateless (each request its own MCP session), so any of `--workers N` answers any request.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import JSONResponse
from mcp.server.fastmcp import Context
from mcp.server.fastmcp.server import StreamableHTTPASGIApp
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from dure.mcp.server import Door, DureMCP, build_server
from dure.server.deps import get_owner

PATH = "/mcp"
#: Where the caller's owner rides from the key check to the tools (the request's own scope).
OWNER = "dure.owner"


class KeyedEndpoint:
    """The MCP endpoint, entered only with a valid key (401 / 429 as elsewhere).

    The SDK's session manager runs once per instance, and an app may be started more than
    once (each `TestClient` block starts it anew), so each start builds its own server."""

    def __init__(self, build: Callable[[], DureMCP]) -> None:
        self.build = build
        self.handler: StreamableHTTPASGIApp | None = None

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        server = self.build()
        server.streamable_http_app()  # creates the session manager
        async with server.session_manager.run():
            self.handler = StreamableHTTPASGIApp(server.session_manager)
            try:
                yield
            finally:
                self.handler = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            scope[OWNER] = await get_owner(Request(scope, receive))
            if self.handler is None:
                raise HTTPException(503, "서버가 시작 중이거나 멈추는 중입니다.")
        except HTTPException as e:
            refusal = JSONResponse({"detail": e.detail}, e.status_code, headers=e.headers)
            await refusal(scope, receive, send)
            return
        await self.handler(scope, receive, send)


def install_mcp(app: FastAPI) -> KeyedEndpoint:
    """Add `/mcp` to the app; its lifespan must enter `app.state.mcp.running()`."""

    def resolve(ctx: Context) -> Door:
        request = ctx.request_context.request
        if request is None or OWNER not in request.scope:  # only ever called through the route
            raise RuntimeError("MCP request without a checked key")
        return Door(app.state.turns, request.scope[OWNER])

    endpoint = KeyedEndpoint(lambda: build_server(resolve))
    app.router.routes.append(Route(PATH, endpoint=endpoint))
    app.state.mcp = endpoint
    return endpoint
