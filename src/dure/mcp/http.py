"""`/mcp` on `dure serve`: Dure's MCP server over streamable HTTP, behind the same API keys,
rate limit and per-key isolation as every other route (`dure.server.deps.get_owner`).

Stateless (each request its own MCP session), so any of `--workers N` answers any request.
"""

from __future__ import annotations

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import JSONResponse
from mcp.server.fastmcp import Context
from mcp.server.fastmcp.server import StreamableHTTPASGIApp
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from dure.mcp.server import Door, DureMCP, build_server
from dure.server.deps import get_owner

PATH = "/mcp"
#: Where the caller's owner rides from the key check to the tools (the request's own scope).
OWNER = "dure.owner"


class KeyedEndpoint:
    """The MCP endpoint, entered only with a valid key (401 / 429 as elsewhere)."""

    def __init__(self, endpoint: ASGIApp) -> None:
        self.endpoint = endpoint

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            scope[OWNER] = await get_owner(Request(scope, receive))
        except HTTPException as e:
            refusal = JSONResponse({"detail": e.detail}, e.status_code, headers=e.headers)
            await refusal(scope, receive, send)
            return
        await self.endpoint(scope, receive, send)


def install_mcp(app: FastAPI) -> DureMCP:
    """Add `/mcp` to the app; its lifespan must run `app.state.mcp.session_manager.run()`."""

    def resolve(ctx: Context) -> Door:
        request = ctx.request_context.request
        if request is None or OWNER not in request.scope:  # only ever called through the route
            raise RuntimeError("MCP request without a checked key")
        return Door(app.state.turns, request.scope[OWNER])

    server = build_server(resolve)
    server.streamable_http_app()  # creates the session manager
    endpoint = KeyedEndpoint(StreamableHTTPASGIApp(server.session_manager))
    app.router.routes.append(Route(PATH, endpoint=endpoint))
    app.state.mcp = server
    return server
