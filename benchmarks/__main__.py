"""Run the benchmarks: `python -m benchmarks [NAME ...]`.

Every module `benchmarks/<name>.py` (not `_`-prefixed helpers) exposes `run() -> dict` (it prints its own table); the
result is written to `benchmarks/results/<name>.json`. With names, only those modules run.
A benchmark that fails is reported and the others still run; the exit code says so.
"""

from __future__ import annotations

import importlib
import json
import sys
import time
import traceback
from pathlib import Path

HERE = Path(__file__).parent
RESULTS = HERE / "results"


def available() -> list[str]:
    """Names of the benchmark modules."""
    return sorted(p.stem for p in HERE.glob("*.py") if not p.stem.startswith("_"))


def main(argv: list[str]) -> int:
    """Run the named benchmarks (all by default); 0 if every one finished."""
    names = argv or available()
    unknown = sorted(set(names) - set(available()))
    if unknown:
        print(f"unknown benchmark(s): {', '.join(unknown)}; known: {', '.join(available())}")
        return 2
    RESULTS.mkdir(exist_ok=True)
    failed: list[str] = []
    for name in names:
        print(f"\n=== {name} ===", flush=True)
        started = time.perf_counter()
        try:
            result = importlib.import_module(f"benchmarks.{name}").run()
        except Exception:
            traceback.print_exc()
            failed.append(name)
            continue
        out = RESULTS / f"{name}.json"
        out.write_text(
            json.dumps(result, ensure_ascii=False, indent=2, default=str) + "\n", encoding="utf-8"
        )
        print(f"→ {out.relative_to(HERE.parent)} ({time.perf_counter() - started:.1f} s)")
    if failed:
        print(f"\nfailed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
