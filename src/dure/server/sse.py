"""Server-Sent Events: framing, and comment pings so proxies keep a quiet stream open."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

from fastapi.responses import StreamingResponse

PING_SECONDS = 15.0


def frame(data: Any, event: str | None = None, event_id: int | None = None) -> str:
    """One SSE message (`data` as JSON unless it is a string already); `event_id` is what a
    client that reconnects sends back as `Last-Event-ID`."""
    payload = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
    head = (f"id: {event_id}\n" if event_id is not None else "") + (
        f"event: {event}\n" if event else ""
    )
    return f"{head}data: {payload}\n\n"


async def with_pings(frames: AsyncIterator[str], every: float = PING_SECONDS) -> AsyncIterator[str]:
    """`frames`, with a `: ping` comment whenever nothing was sent for `every` seconds."""
    iterator = aiter(frames)
    pending: asyncio.Task[str] | None = None
    try:
        while True:
            pending = pending or asyncio.ensure_future(anext(iterator))
            done, _ = await asyncio.wait({pending}, timeout=every)
            if not done:
                yield ": ping\n\n"
                continue
            try:
                yield pending.result()
            except StopAsyncIteration:
                return
            pending = None
    finally:
        if pending and not pending.done():
            pending.cancel()


def sse_response(frames: AsyncIterator[str], headers: dict[str, str] | None = None) -> Any:
    """A streaming `text/event-stream` response that proxies do not buffer."""
    return StreamingResponse(
        with_pings(frames),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no", **(headers or {})},
    )
