"""The loaded local model: one llama.cpp `Llama` per model file, shared and serialised.

llama.cpp is not thread-safe, so generations take turns on each engine's `Line` (first come,
first served; a waiting caller learns how many are ahead of it). A generation runs under a
`Stop`: set from any thread, it halts llama.cpp inside its current decode (prompt evaluation
included), and a caller still in line leaves it. Prompts are formatted with the GGUF's own chat
template.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dure.errors import DureError
from dure.llm.weights import verify_model
from dure.telemetry import metrics


class LocalModelError(DureError):
    """The local model cannot run (llama-cpp-python missing, prompt too long for its context)."""


class Line:
    """Who uses the model next: first come, first served."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._places: list[object] = []

    @contextlib.contextmanager
    def place(self) -> Iterator[object]:
        """A place at the end of the line, held until the block ends."""
        me = object()
        with self._changed:
            self._places.append(me)
            metrics.LLM_QUEUE.set(len(self._places) - 1)
        try:
            yield me
        finally:
            with self._changed:
                self._places.remove(me)
                metrics.LLM_QUEUE.set(max(len(self._places) - 1, 0))
                self._changed.notify_all()

    def ahead(self, place: object, wait: float = 0.0) -> int:
        """How many places are ahead of `place` (0: its turn), after waiting up to `wait`
        seconds for that to change."""
        with self._changed:
            if self._places.index(place) and wait > 0:
                self._changed.wait(wait)
            return self._places.index(place)

    def __len__(self) -> int:
        """How many hold a place (the one using the model included)."""
        with self._changed:
            return len(self._places)


class Stop(threading.Event):
    """A request to stop one generation, from any thread. While the generation runs on an
    engine (`Engine.running`), setting it also raises that engine's abort flag, so llama.cpp
    gives up within its current decode instead of finishing it."""

    def __init__(self) -> None:
        super().__init__()
        self._guard = threading.Lock()
        self._abort: ctypes.Array[ctypes.c_char] | None = None

    def set(self) -> None:
        """Stop: the generation ends at once, wherever it is."""
        with self._guard:
            super().set()
            if self._abort is not None:
                self._abort[0] = b"\x01"

    @contextlib.contextmanager
    def _armed(self, flag: ctypes.Array[ctypes.c_char]) -> Iterator[None]:
        with self._guard:
            self._abort = flag
            flag[0] = b"\x01" if self.is_set() else b"\x00"
        try:
            yield
        finally:
            with self._guard:
                self._abort = None
                flag[0] = b"\x00"


@dataclass
class Engine:
    """One loaded model: the `Llama`, its chat formatter, the line that serialises it, and the
    flag llama.cpp reads to abort a decode."""

    llama: Any
    formatter: Any
    load_seconds: float
    line: Line = field(default_factory=Line)
    abort_flag: ctypes.Array[ctypes.c_char] = field(default_factory=lambda: _flag())

    @contextlib.contextmanager
    def running(self, stop: Stop | None) -> Iterator[None]:
        """While the holder of the line's first place generates: `stop` aborts the decode."""
        with stop._armed(self.abort_flag) if stop is not None else contextlib.nullcontext():
            yield


def _flag() -> ctypes.Array[ctypes.c_char]:
    return ctypes.create_string_buffer(2)


def _abort_on(engine: Engine) -> None:
    """Let `engine.abort_flag` abort llama.cpp's decode (checked after every node of its graph).

    ggml calls the abort callback from its compute thread hundreds of times a token; a Python
    callback takes the GIL each time (measured on 2 busy cores: several times slower
    generation). C's `strlen` on the flag, a one-byte string, answers the same question without
    Python: 0 goes on, 1 aborts.
    """
    import llama_cpp

    strlen = ctypes.cast(ctypes.CDLL(None).strlen, llama_cpp.ggml_abort_callback)
    data = ctypes.cast(engine.abort_flag, ctypes.c_void_p)
    llama_cpp.llama_set_abort_callback(engine.llama._ctx.ctx, strlen, data)


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
            engine = _load(path, n_ctx, n_threads, prompt_cache_mb)
            _abort_on(engine)
            _engines[key] = engine
        return _engines[key]


def close_engines() -> None:
    """Free every loaded model (at exit: `Llama.__del__` during interpreter teardown fails loudly)."""
    with _engines_lock:
        for engine in _engines.values():
            # A generation still running (an interrupted turn) keeps its model: freeing it
            # under the running thread would crash.
            with engine.line.place() as me:
                deadline = time.monotonic() + 2
                while engine.line.ahead(me, wait=0.1) and time.monotonic() < deadline:
                    pass
                if not engine.line.ahead(me):
                    engine.llama.close()
        _engines.clear()


def _load(path: Path, n_ctx: int, n_threads: int, prompt_cache_mb: int) -> Engine:
    try:
        from llama_cpp import Llama
        from llama_cpp.llama_chat_format import CHATML_CHAT_TEMPLATE, Jinja2ChatFormatter

        from dure.llm.prompt_cache import PromptCache
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
        # restored (least recently used ones go first), and counted by all they hold.
        llama.set_cache(PromptCache(capacity_bytes=prompt_cache_mb * 2**20))
    eos = llama.token_eos()
    bos = llama.token_bos()
    formatter = Jinja2ChatFormatter(
        # A GGUF without a template is rare; ChatML is the common denominator then.
        template=llama.metadata.get("tokenizer.chat_template") or CHATML_CHAT_TEMPLATE,
        eos_token=llama._model.token_get_text(eos) if eos != -1 else "",
        bos_token=llama._model.token_get_text(bos) if bos != -1 else "",
        stop_token_ids=[eos],
    )
    return Engine(llama, formatter, time.perf_counter() - started)
