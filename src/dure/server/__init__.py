"""The HTTP server: REST + SSE API, OpenAI-compatible API, API keys, and the web UI.

`create_app(settings)` builds the FastAPI app; `dure serve` runs it with uvicorn.
"""

from dure.server.app import create_app

__all__ = ["create_app"]
