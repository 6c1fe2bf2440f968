"""Benchmarks: each module exposes `run() -> dict`; `python -m benchmarks` runs them all."""
