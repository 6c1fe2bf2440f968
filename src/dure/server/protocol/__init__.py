"""LangGraph's Agent Protocol, the subset `langgraph-sdk` and `RemoteGraph` use, under
`/langgraph`: assistants (one per agent), threads and runs over Dure's own threads, turns and
keys. Clients take `http://<server>/langgraph` as their URL."""

from typing import Any

from fastapi import APIRouter

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
