"""Liveness and readiness, metrics, the agent list, and what the web UI needs before a key."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from dure.agents import agent_names, get_agent
from dure.server.deps import Owner, SettingsDep, TurnsDep
from dure.telemetry import metrics

router = APIRouter(tags=["system"])


@router.get("/healthz", summary="살아 있음")
async def healthz() -> dict[str, str]:
    """The process answers."""
    return {"status": "ok"}


@router.get("/readyz", summary="요청을 받을 준비")
async def readyz(turns: TurnsDep) -> Any:
    """The database (server tables and checkpointer) answers; 503 otherwise."""
    try:
        await turns.store.db.ping()
        await turns.storage.checkpointer.aget_tuple({"configurable": {"thread_id": "readyz"}})
    except Exception as e:
        return JSONResponse({"status": "unavailable", "reason": type(e).__name__}, 503)
    return {"status": "ready"}


@router.get(
    "/metrics",
    summary="Prometheus 지표",
    response_class=Response,
    responses={200: {"content": {"text/plain": {}}}},
)
async def metrics_text(owner: Owner) -> Response:
    """Prometheus metrics in the text exposition format, every worker's added up (an API key
    is needed like anywhere else when auth is on)."""
    body, content_type = metrics.exposition()
    return Response(body, media_type=content_type)


@router.get("/agents", summary="에이전트 목록")
async def agents() -> dict[str, Any]:
    """Every registered agent: name and Korean title."""
    return {"agents": [{"name": n, "title": get_agent(n).title} for n in agent_names()]}


@router.get("/config", summary="웹 UI 설정")
async def config(request: Request, settings: SettingsDep) -> dict[str, Any]:
    """Whether a key is needed, and the limits the web UI checks before sending."""
    return {
        "auth": settings.server.auth,
        "max_upload_bytes": settings.server.max_upload_bytes,
        "max_message_chars": settings.max_message_chars,
        "version": request.app.version,
    }
