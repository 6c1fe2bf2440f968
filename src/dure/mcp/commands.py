"""`dure mcp`: Dure's MCP server over stdio, for Claude Desktop, Cursor and other clients.

Threads and documents are the local owner's, the same the CLI (`dure documents add`) and an
unauthenticated local server use. Nothing but the protocol may reach stdout.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import BinaryIO

import typer

from dure.llm import ModelSet
from dure.settings import Settings, get_settings


@contextmanager
def protocol_stdout() -> Iterator[BinaryIO]:
    """The real stdout, for the protocol alone: while it is held, whatever else writes to
    stdout (a `print`, a library's C code on descriptor 1) goes to stderr instead."""
    sys.stdout.flush()
    protocol = os.fdopen(os.dup(1), "wb", buffering=0)
    saved, stdout = os.dup(1), sys.stdout
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    try:
        yield protocol
    finally:
        sys.stdout = stdout
        os.dup2(saved, 1)
        os.close(saved)
        protocol.close()


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
            with protocol_stdout() as protocol:
                await build_server(lambda ctx: Door(turns, LOCAL_OWNER)).run_stdio(protocol)
        finally:
            await turns.close()


def mcp() -> None:
    """MCP 서버를 stdio로 실행합니다 (에이전트·검색·문서 등록 도구, 문서 리소스)."""
    asyncio.run(serve_stdio(get_settings()))


def register(app: typer.Typer) -> None:
    """Add `mcp` to the `dure` command."""
    app.command()(mcp)
