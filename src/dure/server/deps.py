"""Request dependencies: who is calling (API key → owner), per-key rate limit, shared objects."""

from __future__ import annotations

import time
from typing import Annotated

from fastapi import Depends, HTTPException, Request

from dure.server.guard import FailedKeys
from dure.server.keys import owner_of
from dure.server.store import LOCAL_OWNER, Store
from dure.server.turns import Turns
from dure.settings import Settings

__all__ = ["LOCAL_OWNER", "Owner", "SettingsDep", "StoreDep", "TurnsDep", "get_owner"]


def get_settings_dep(request: Request) -> Settings:
    """The app's settings."""
    return request.app.state.settings


def get_turns(request: Request) -> Turns:
    """The app's turn runner."""
    return request.app.state.turns


def get_store(request: Request) -> Store:
    """The app's table access."""
    return request.app.state.turns.store


def _presented_key(request: Request) -> str | None:
    auth = request.headers.get("authorization", "")
    scheme, _, token = auth.partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return token.strip()
    return request.headers.get("x-api-key") or None


async def get_owner(request: Request) -> str:
    """The calling key's owner id (401 without a valid key), after the rate limit (429)."""
    settings: Settings = request.app.state.settings
    store: Store = request.app.state.turns.store
    if not settings.server.auth:
        owner = LOCAL_OWNER
    else:
        failed: FailedKeys = request.app.state.failed_keys
        client = request.client.host if request.client else "-"
        if wait := failed.wait_seconds(client):
            raise HTTPException(
                429,
                f"잘못된 API 키가 너무 많이 들어왔습니다. {wait}초 뒤에 다시 시도해 주세요.",
                headers={"Retry-After": str(wait)},
            )
        key = _presented_key(request)
        if not key:
            raise HTTPException(
                401,
                "API 키가 필요합니다 (Authorization: Bearer <키>). `dure keys create`로 만드세요.",
                headers={"WWW-Authenticate": "Bearer"},
            )
        found = await owner_of(store.db, key)
        if found is None:
            failed.record(client)
            raise HTTPException(
                401,
                "API 키가 올바르지 않거나 폐기되었습니다.",
                headers={"WWW-Authenticate": "Bearer"},
            )
        owner = found
    limit = settings.server.rate_limit_per_minute
    if limit > 0 and await store.count_request(owner) > limit:
        retry = 60 - int(time.time() % 60)
        raise HTTPException(
            429,
            f"요청이 너무 많습니다 (분당 {limit}회). {retry}초 뒤에 다시 시도해 주세요.",
            headers={"Retry-After": str(retry)},
        )
    return owner


Owner = Annotated[str, Depends(get_owner)]
TurnsDep = Annotated[Turns, Depends(get_turns)]
StoreDep = Annotated[Store, Depends(get_store)]
SettingsDep = Annotated[Settings, Depends(get_settings_dep)]
