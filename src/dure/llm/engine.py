"""The loaded local model: one llama.cpp `Llama` per model file, shared and serialised.

llama.cpp is not thread-safe, so each engine carries the lock that serialises its generations;
prompts are formatted with the GGUF's own chat template.
"""

from __future__ import annotations

import atexit
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dure.errors import DureError
from dure.llm.weights import verify_model


class LocalModelError(DureError):
    """The local model cannot run (llama-cpp-python missing, prompt too long for its context)."""


@dataclass
class Engine:
    """One loaded model: the `Llama`, its chat formatter and the lock that serialises it."""

    llama: Any
    formatter: Any
    lock: threading.Lock
    load_seconds: float


_engines: dict[tuple[str, int, int, int], Engine] = {}
_engines_lock = threading.Lock()


def load_engine(
    path: Path, n_ctx: int, n_threads: int, sha256: str | None, prompt_cache_mb: int = 0
) -> Engine:
    """The shared engine for a model file, loaded (and verified) on first use."""
    key = (str(path), n_ctx, n_threads, prompt_cache_mb)
    with _engines_lock:
        if key not in _engines:
            verify_model(path, sha256)
            if not _engines:
                atexit.register(close_engines)
            _engines[key] = _load(path, n_ctx, n_threads, prompt_cache_mb)
        return _engines[key]


def close_engines() -> None:
    """Free every loaded model (at exit: `Llama.__del__` during interpreter teardown fails loudly)."""
    with _engines_lock:
        for engine in _engines.values():
            # A generation still running (an interrupted turn) keeps its model: freeing it
            # under the running thread would crash.
            if engine.lock.acquire(timeout=2):
                try:
                    engine.llama.close()
                finally:
                    engine.lock.release()
        _engines.clear()


def _load(path: Path, n_ctx: int, n_threads: int, prompt_cache_mb: int) -> Engine:
    try:
        from llama_cpp import Llama, LlamaRAMCache
        from llama_cpp.llama_chat_format import CHATML_CHAT_TEMPLATE, Jinja2ChatFormatter
    except ImportError as e:
        raise LocalModelError(
            "llama-cpp-python이 설치되어 있지 않습니다: pip install 'dure[local]'"
        ) from e
    started = time.perf_counter()
    # No chat_format: the prompt is built from the GGUF's own template below.
    llama = Llama(model_path=str(path), n_ctx=n_ctx, n_threads=n_threads, verbose=False)
    if prompt_cache_mb > 0:
        # The calls of a turn (and of a thread's turns) share long prefixes — system prompt,
        # contract articles, history — but alternate between prompts, and llama.cpp itself only
        # reuses the previous one. Each finished prompt's state is kept; the longest match is
        # restored (least recently used ones go first).
        llama.set_cache(LlamaRAMCache(capacity_bytes=prompt_cache_mb * 2**20))
    eos = llama.token_eos()
    bos = llama.token_bos()
    formatter = Jinja2ChatFormatter(
        # A GGUF without a template is rare; ChatML is the common denominator then.
        template=llama.metadata.get("tokenizer.chat_template") or CHATML_CHAT_TEMPLATE,
        eos_token=llama._model.token_get_text(eos) if eos != -1 else "",
        bos_token=llama._model.token_get_text(bos) if bos != -1 else "",
        stop_token_ids=[eos],
    )
    return Engine(llama, formatter, threading.Lock(), time.perf_counter() - started)
