"""The FastAPI application: `create_app(settings)`.

One process = one app: it opens the database (server tables + checkpointer) for its lifetime
and runs turns. Any number of such processes can share one Postgres.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

import dure
from dure.agents import UnknownAgentError
from dure.errors import DureError
from dure.llm import ModelSet
from dure.mcp.http import install_mcp
from dure.netloc import is_loopback
from dure.privacy import install_log_masking
from dure.server import protocol
from dure.server.database import open_storage
from dure.server.docs import install_docs
from dure.server.documents import DocumentNotFoundError, UnsupportedTypeError
from dure.server.guard import FailedKeys, LocalOnly, SecurityHeaders
from dure.server.routes import documents, openai, system, threads
from dure.server.turns import ServerBusyError, TurnBusyError, Turns
from dure.settings import Settings, get_settings

log = logging.getLogger(__name__)

STATIC = Path(__file__).parent / "static"
TOO_LARGE = "요청이 너무 큽니다 (요청·업로드 크기 제한을 넘었습니다)."

# A user-fixable error's HTTP status by class (the first match wins; default 400).
_STATUS: tuple[tuple[type[Exception], int], ...] = (
    (TurnBusyError, 409),
    (ServerBusyError, 503),
    (DocumentNotFoundError, 404),
    (UnsupportedTypeError, 415),
    (UnknownAgentError, 400),
)


def check_auth_setting(settings: Settings) -> None:
    """Refuse to serve without authentication anywhere but on loopback."""
    if not settings.server.auth and not is_loopback(settings.server.host):
        raise DureError(
            "인증 없이(server.auth=false) 서버를 열 수 있는 주소는 127.0.0.1 또는 ::1뿐입니다 "
            f"(지금: {settings.server.host}). API 키를 쓰세요: dure keys create"
        )


class BodyLimits:
    """413 for bodies over the limit (uploads have their own, larger one): at once when the
    declared length is too large, else as soon as the bytes received pass the limit."""

    def __init__(self, app: ASGIApp, default: int, upload: int) -> None:
        self.app = app
        self.default = default
        self.upload = upload

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        upload = scope["method"] == "POST" and scope["path"] == "/documents"
        limit = self.upload if upload else self.default
        declared = Headers(scope=scope).get("content-length")
        if declared and declared.isdigit() and int(declared) > limit:
            await _error(Request(scope), 413, TOO_LARGE)(scope, receive, send)
            return
        received = 0

        async def counted() -> Message:
            nonlocal received
            message = await receive()
            received += len(message.get("body", b""))
            if received > limit:  # the app turns this into the 413 response
                raise HTTPException(413, TOO_LARGE)
            return message

        await self.app(scope, counted, send)


def _error(request: Request, status: int, message: str, **extra: Any) -> JSONResponse:
    """Errors as `{"detail": ...}`, or in OpenAI's shape under `/v1`."""
    headers = extra.pop("headers", None)
    if request.url.path.startswith("/v1/"):
        kind = "invalid_request_error" if status < 500 else "server_error"
        body: dict[str, Any] = {"error": {"message": message, "type": kind, "code": status}}
    else:
        body = {"detail": message, **extra}
    return JSONResponse(body, status_code=status, headers=headers)


def _validation_message(exc: RequestValidationError) -> str:
    first = exc.errors()[0] if exc.errors() else {}
    if first.get("type") == "json_invalid":
        reason = (first.get("ctx") or {}).get("error", "")
        return f"요청 본문이 올바른 JSON이 아닙니다 (위치 {first['loc'][-1]}: {reason})."
    # "function-after[encodable(), str]" and the like name validators, not places
    where = ".".join(str(p) for p in first.get("loc", ()) if p != "body" and "[" not in str(p))
    return f"요청 형식이 올바르지 않습니다 — {where or '본문'}: {first.get('msg', '')}"


def _install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = [{k: e.get(k) for k in ("type", "loc", "msg")} for e in exc.errors()]
        return _error(request, 422, _validation_message(exc), errors=errors)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, exc: HTTPException) -> JSONResponse:
        return _error(request, exc.status_code, str(exc.detail), headers=exc.headers)

    @app.exception_handler(DureError)
    async def user_error(request: Request, exc: DureError) -> JSONResponse:
        status = next((s for cls, s in _STATUS if isinstance(exc, cls)), 400)
        if isinstance(exc, ServerBusyError):
            return _error(request, status, str(exc), headers={"Retry-After": str(exc.retry_after)})
        return _error(request, status, str(exc))


def create_app(settings: Settings | None = None, *, models: ModelSet | None = None) -> FastAPI:
    """The Dure server. `models` replaces the configured chat models (tests pass scripted ones)."""
    settings = settings or get_settings()
    check_auth_setting(settings)
    install_log_masking()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with (
            open_storage(settings.effective_database_url) as storage,
            app.state.mcp.running(),
        ):
            turns = Turns(storage, settings, models or ModelSet(settings))
            app.state.turns = turns
            turns.open()
            try:
                yield
            finally:
                await turns.close()

    app = FastAPI(
        title="두레 Dure",
        version=dure.__version__,
        description=(
            "한국어 대화형 에이전트 서버: 대화, SSE 스트리밍, OpenAI 호환 API, "
            "LangGraph 에이전트 프로토콜(/langgraph)."
        ),
        lifespan=lifespan,
        docs_url=None,  # install_docs serves it without a CDN
        redoc_url=None,
    )
    app.state.settings = settings
    app.state.failed_keys = FailedKeys(settings.server.failed_keys_per_minute)
    _install_error_handlers(app)
    for module in (system, threads, documents, openai, protocol):
        app.include_router(module.router)
    install_mcp(app)  # /mcp
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    install_docs(app, STATIC)

    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    app.add_middleware(protocol.SdkAtRoot)
    app.add_middleware(
        BodyLimits,
        default=settings.server.max_request_bytes,
        upload=settings.server.max_upload_bytes,
    )
    if settings.server.cors_origins:  # off unless origins are configured
        app.add_middleware(
            CORSMiddleware,
            allow_origins=settings.server.cors_origins,
            allow_methods=["*"],
            allow_headers=["*"],
            # Content-Location: a LangGraph run's id, for a browser client (Agent Chat UI)
            expose_headers=["X-Dure-Thread", "X-Dure-Turn", "Content-Location"],
        )
    app.add_middleware(SecurityHeaders)
    if not settings.server.auth:  # whatever address the app was started on
        app.add_middleware(LocalOnly)
    return app


def app_from_env() -> FastAPI:
    """The app as uvicorn's factory builds it in each worker process (settings from env)."""
    return create_app(get_settings())
