"""Prometheus metrics: turns, LLM calls, tokens, latencies, tools, sandbox runs, queues.

Every process counts into `prometheus_client`'s default registry. Under `dure serve --workers N`
the workers are separate processes: `dure serve` gives them a fresh `PROMETHEUS_MULTIPROC_DIR`
(`multiprocess_dir`) before they start, each writes its samples there, and `/metrics` adds up
every worker's files (`exposition`). A worker that ends marks itself dead, so its gauges leave
the sums; its counters stay in them.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client import multiprocess as _multiprocess

MULTIPROC_VAR = "PROMETHEUS_MULTIPROC_DIR"
#: Seconds: from a rule-decided turn (milliseconds) to a slow local-model answer (minutes).
_SLOW = (0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120, 300)
#: Seconds: nodes, model calls and tools.
_FAST = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60)

TURNS = Counter(
    "dure_turns",
    "Turns that ended, by outcome: ok, waiting (a question) or an error code",
    ["agent", "outcome"],
)
TURN_SECONDS = Histogram("dure_turn_duration_seconds", "Turn latency", ["agent"], buckets=_SLOW)
TURNS_IN_PROGRESS = Gauge(
    "dure_turns_in_progress", "Turns running now", ["agent"], multiprocess_mode="livesum"
)
TURNS_REJECTED = Counter(
    "dure_turns_rejected", "Turns refused because the server ran its cap (503)"
)
NODE_SECONDS = Histogram(
    "dure_node_duration_seconds", "Graph node latency", ["agent", "node"], buckets=_FAST
)
LLM_CALLS = Counter(
    "dure_llm_calls",
    "Chat-model calls by model role (fast, smart) and outcome: ok, cached (an LLM cache hit), "
    "error",
    ["agent", "node", "role", "outcome"],
)
LLM_TOKENS = Counter(
    "dure_llm_tokens",
    "Tokens sent to (input) and made by (output) the model, cache hits not",
    ["agent", "node", "type"],
)
LLM_SECONDS = Histogram(
    "dure_llm_call_duration_seconds", "Chat-model call latency", ["agent", "node"], buckets=_FAST
)
LLM_QUEUE = Gauge(
    "dure_llm_queue_depth",
    "Calls waiting for the local model (llama.cpp runs one generation at a time)",
    multiprocess_mode="livesum",
)
TOOL_CALLS = Counter(
    "dure_tool_calls", "Tool calls, by outcome (ok, error)", ["agent", "tool", "outcome"]
)
TOOL_SECONDS = Histogram(
    "dure_tool_duration_seconds", "Tool call latency", ["agent", "tool"], buckets=_FAST
)
SANDBOX_RUNS = Counter(
    "dure_sandbox_runs",
    "Python sandbox runs, by outcome: ok, error (non-zero exit), timeout, busy (no free slot), "
    "unavailable (no working sandbox)",
    ["outcome"],
)
SANDBOX_QUEUE = Gauge(
    "dure_sandbox_queue_depth", "Sandbox runs waiting for a free slot", multiprocess_mode="livesum"
)


def exposition() -> tuple[bytes, str]:
    """The text a scrape gets, and its content type: this process's metrics, or every
    worker's added up when they share a multiprocess directory."""
    if os.environ.get(MULTIPROC_VAR):
        registry = CollectorRegistry()
        _multiprocess.MultiProcessCollector(registry)
        return generate_latest(registry), CONTENT_TYPE_LATEST
    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST


def multiprocess_dir() -> Path:
    """A fresh directory for the workers' samples (a server's earlier files would be counted
    again), named in `PROMETHEUS_MULTIPROC_DIR` for the processes started from now on, and
    removed when this process exits."""
    path = Path(tempfile.mkdtemp(prefix="dure-metrics-"))
    os.environ[MULTIPROC_VAR] = str(path)
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    return path


def _mark_dead() -> None:
    directory = os.environ.get(MULTIPROC_VAR)
    if directory and Path(directory).is_dir():
        _multiprocess.mark_process_dead(os.getpid(), directory)


# A worker writing into a shared directory takes its live gauges out of the sums as it exits.
if os.environ.get(MULTIPROC_VAR):
    atexit.register(_mark_dead)
