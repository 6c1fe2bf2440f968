"""A persistent LLM cache (`enable_cache`), keyed on model + messages + parameters.

LangChain builds the key (`llm_string` holds the model and every request parameter, bound
tools and response format included). Hits and misses are counted in the turn's usage.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
import warnings
from pathlib import Path
from typing import Any

from langchain_core._api import LangChainBetaWarning
from langchain_core.caches import RETURN_VAL_TYPE, BaseCache
from langchain_core.load import Serializable, dumps, loads
from langchain_core.messages import AIMessage, AIMessageChunk
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk

from dure.usage import current_tracker

# Only replies are revived from the file: never a model or anything with constructor effects.
_REPLY_TYPES: list[type[Serializable]] = [
    ChatGeneration,
    ChatGenerationChunk,
    AIMessage,
    AIMessageChunk,
]


class SQLiteLLMCache(BaseCache):
    """LLM replies in one SQLite file."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS llm_cache (key TEXT PRIMARY KEY, value TEXT)")
        self._lock = threading.Lock()

    @staticmethod
    def _key(prompt: str, llm_string: str) -> str:
        return hashlib.sha256(f"{llm_string}\x00{prompt}".encode()).hexdigest()

    def lookup(self, prompt: str, llm_string: str) -> RETURN_VAL_TYPE | None:
        with self._lock:
            row = self._db.execute(
                "SELECT value FROM llm_cache WHERE key = ?", (self._key(prompt, llm_string),)
            ).fetchone()
        tracker = current_tracker()
        if tracker is not None:
            tracker.record_cache(hit=row is not None)
        if row is None:
            return None
        with warnings.catch_warnings():  # `loads` is marked beta: no notice on a user's screen
            warnings.simplefilter("ignore", LangChainBetaWarning)
            generations = loads(row[0], allowed_objects=_REPLY_TYPES)
        for g in generations:
            g.generation_info = {**(g.generation_info or {}), "dure_cached": True}
        return generations

    def update(self, prompt: str, llm_string: str, return_val: RETURN_VAL_TYPE) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO llm_cache (key, value) VALUES (?, ?)",
                (self._key(prompt, llm_string), dumps(list(return_val))),
            )

    def clear(self, **kwargs: Any) -> None:
        with self._lock:
            self._db.execute("DELETE FROM llm_cache")

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM llm_cache").fetchone()[0])
