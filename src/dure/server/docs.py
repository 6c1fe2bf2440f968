"""`/docs` without a CDN: Swagger UI's scripts and styles come from the `fastapi-offline`
package (served at `/docs-assets`), its page and start-up script from Dure's static files, so
it renders on a machine without internet and under the server's content security policy
(no inline script)."""

from __future__ import annotations

from pathlib import Path

import fastapi_offline
from fastapi import FastAPI
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

ASSETS = Path(fastapi_offline.__file__).parent / "static"


def install_docs(app: FastAPI, static: Path) -> None:
    """Serve `/docs` (the page in `static/docs.html`) and its assets."""
    app.mount("/docs-assets", StaticFiles(directory=ASSETS), name="docs-assets")

    @app.get("/docs", include_in_schema=False)
    async def docs() -> FileResponse:
        return FileResponse(static / "docs.html", headers={"Cache-Control": "no-cache"})
