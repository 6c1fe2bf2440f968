"""`dure mcp`: Dure's MCP server over stdio, for Claude Desktop, Cursor and other clients.

Threads and documents are the local owner's, the same the CLI (`dure documents add`) and an
unauthenticated local server use. Nothing but the protocol may reach stdout.
"""

from __future__ import annotations

import asyncio

import typer

from dure.llm import ModelSet
from dure.settings import Settings, get_settings


async def serve_stdio(settings: Settings, models: ModelSet | None = None) -> None:
    """Serve MCP on stdin/stdout until the client closes them."""
    from dure.mcp.server import Door, build_server
    from dure.server.database import open_storage
    from dure.server.store import LOCAL_OWNER
    from dure.server.turns import Turns

    async with open_storage(settings.effective_database_url) as storage:
        turns = Turns(storage, settings, models or ModelSet(settings))
        turns.open()
        try:
            await build_server(lambda ctx: Door(turns, LOCAL_OWNER)).run_stdio_async()
        finally:
            await turns.close()


def mcp() -> None:
    """MCP 서버를 stdio로 실행합니다 (에이전트·검색·문서 등록 도구, 문서 리소스)."""
    asyncio.run(serve_stdio(get_settings()))


def register(app: typer.Typer) -> None:
    """Add `mcp` to the `dure` command."""
    app.command()(mcp)
