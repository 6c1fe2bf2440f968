"""Dure (두레): Korean-first conversational agents on LangGraph.

`run_stream` / `arun_stream` (see `dure.api`) run one turn of any agent as typed events.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = ["arun_stream", "run_stream"]

if TYPE_CHECKING:
    from dure.api import arun_stream, run_stream


def __getattr__(name: str) -> Any:
    # Imported on first use, so `import dure` (and the CLI's start) stays light.
    if name in __all__:
        from dure import api

        return getattr(api, name)
    raise AttributeError(f"module 'dure' has no attribute {name!r}")
