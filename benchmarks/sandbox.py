"""What the Python tool's sandbox costs per run: start-up to result of `print(1)`.

Sandboxed: `dure.tools.sandbox.run_python` (bubblewrap, namespaces, read-only root, rlimits,
one slot of the run queue), from spawning to the result. Baseline in the same run: a bare
`python -I -S -c 'print(1)'` subprocess of the same interpreter, started the same way
(asyncio). Runs alternate between the two so drift hits both alike. Reported: p50 and p95
milliseconds and the ratio of the p50s.

`BEFORE_P50_MS` is the sandbox this one replaced (a `python -I -S` child with a lexical audit
hook, no bubblewrap), measured on the 2-core development machine before the change with the
same loop; it is printed for comparison, not re-measured. `DURE_BENCH_SANDBOX_RUNS` sets the
number of runs.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import time
from typing import Any

from dure.tools.sandbox import Limits, run_python, sandbox_problem

RUNS = int(os.environ.get("DURE_BENCH_SANDBOX_RUNS", "100"))
WARMUP = 5
BEFORE_P50_MS = 64.4  # the audit-hook sandbox at af60ae9, same machine (bare python: 11.9 ms)


async def _sandboxed() -> None:
    result = await run_python("print(1)", Limits())
    assert result.output == "1\n", result


async def _bare() -> None:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        *("-I", "-S", "-c", "print(1)"),
        env={},
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    output, _ = await proc.communicate()
    assert output == b"1\n", output


def _stats(ms: list[float]) -> dict[str, float]:
    return {
        "p50_ms": round(statistics.median(ms), 1),
        "p95_ms": round(statistics.quantiles(ms, n=20)[18], 1),
    }


async def _measure(runs: int) -> dict[str, Any]:
    times: dict[str, list[float]] = {"bare": [], "sandboxed": []}
    runners = {"bare": _bare, "sandboxed": _sandboxed}
    for i in range(WARMUP + runs):
        for name in ("bare", "sandboxed") if i % 2 else ("sandboxed", "bare"):
            started = time.perf_counter()
            await runners[name]()
            if i >= WARMUP:
                times[name].append((time.perf_counter() - started) * 1000)
    out: dict[str, Any] = {"runs": runs, **{name: _stats(ms) for name, ms in times.items()}}
    out["ratio_p50"] = round(out["sandboxed"]["p50_ms"] / out["bare"]["p50_ms"], 2)
    out["before_p50_ms"] = BEFORE_P50_MS
    out["ratio_to_before_p50"] = round(out["sandboxed"]["p50_ms"] / BEFORE_P50_MS, 2)
    return out


def run() -> dict[str, Any]:
    """Measure, print a table, return the numbers."""
    problem = sandbox_problem()
    if problem is not None:
        raise RuntimeError(problem)
    result = asyncio.run(_measure(RUNS))
    print(f"\nstart-up to result of print(1), {result['runs']} runs each")
    print(f"{'':40}{'p50 ms':>10}{'p95 ms':>10}")
    for name, label in (
        ("bare", "bare python -I -S subprocess"),
        ("sandboxed", "python_repl sandbox (bubblewrap)"),
    ):
        row = result[name]
        print(f"{label:40}{row['p50_ms']:>10.1f}{row['p95_ms']:>10.1f}")
    print(f"ratio of p50s, sandboxed / bare: {result['ratio_p50']:.2f}")
    print(
        f"before (audit-hook sandbox): p50 {BEFORE_P50_MS} ms; "
        f"now / before: {result['ratio_to_before_p50']:.2f}"
    )
    return result


if __name__ == "__main__":
    run()
