"""The LLM-free runtime: run a plan's steps as a dependency graph.

A step starts as soon as every step it takes input from has succeeded, so independent steps
run concurrently (as LLMCompiler schedules its task DAG), at most `max_parallel` at a time.
After the first failure no new step starts; steps already running finish and are recorded,
and the steps never started stay in the plan for the re-planner. Records come back in plan
order, whatever order the steps finished in, so the audit trail reads like the plan.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pydantic import BaseModel

from dure.agents.pte.plan import step_dependencies
from dure.korean.time import SEOUL
from dure.tools.base import ToolRegistry, ToolResult

OnRecord = Callable[[dict[str, Any]], None]


@dataclass
class Execution:
    """What one executor run did: records in plan order, and the steps it did not start."""

    records: list[dict[str, Any]]
    remaining: list[dict[str, Any]]


def successful_outputs(past_steps: list[dict[str, Any]]) -> dict[int, str]:
    """step_id → output of every step that succeeded (later successes win)."""
    return {
        r["step"]["step_id"]: r["output"]
        for r in past_steps
        if r.get("status") == "success" and "step_id" in r.get("step", {})
    }


def primary_argument(schema: type[BaseModel]) -> str | None:
    """The argument a plain-string input goes to: the first required one, else the first.

    Read from the JSON schema, which an MCP server's tool (`dure.mcp.client`) has as its own."""
    shown = schema.model_json_schema()
    names = list(shown.get("properties", {}))
    required = set(shown.get("required", []))
    return next((n for n in names if n in required), next(iter(names), None))


def tool_args(registry: ToolRegistry, step: dict[str, Any], outputs: dict[int, str]) -> dict:
    """The arguments of `step`: its literal input, or the outputs it takes, bound to the tool."""
    deps = step_dependencies(step)
    value: Any = "\n\n".join(outputs[d] for d in deps) if deps else step.get("input")
    if isinstance(value, dict):
        return value
    if step["tool"] not in registry:
        return {}  # the registry reports the unknown tool as a failed result
    name = primary_argument(registry.get(step["tool"]).args_schema)
    return {name: value} if name else {}


def planned_args(registry: ToolRegistry, step: dict[str, Any], outputs: dict[int, str]) -> dict:
    """`tool_args` as far as known before the run: a later step's input is shown as the
    earlier steps' results it will take."""
    waiting = [d for d in step_dependencies(step) if d not in outputs]
    if not waiting:
        return tool_args(registry, step, outputs)
    if step["tool"] not in registry:
        return {}
    name = primary_argument(registry.get(step["tool"]).args_schema)
    later = ", ".join(f"{d}단계" for d in waiting)
    return {name: f"({later}의 결과)"} if name else {}


def _record(
    step: dict[str, Any], result: ToolResult, started_at: datetime, round_no: int
) -> dict[str, Any]:
    record: dict[str, Any] = {
        "step": step,
        "status": "success" if result.ok else "failure",
        "output": result.content,
        "started_at": started_at.isoformat(timespec="milliseconds"),
        "elapsed_ms": round(result.elapsed_ms, 1),
        "round": round_no,
    }
    if result.sources:
        record["sources"] = [s.model_dump(mode="json") for s in result.sources]
    return record


async def _run_step(
    registry: ToolRegistry,
    step: dict[str, Any],
    outputs: dict[int, str],
    round_no: int,
    refused: str | None,
) -> dict[str, Any]:
    started_at = datetime.now(SEOUL)
    if refused is not None:
        return _record(step, ToolResult.fail(refused), started_at, round_no)
    result = await registry.run(step["tool"], tool_args(registry, step, outputs))
    return _record(step, result, started_at, round_no)


async def run_plan(
    plan: list[dict[str, Any]],
    registry: ToolRegistry,
    *,
    outputs: dict[int, str] | None = None,
    max_parallel: int = 4,
    round_no: int = 0,
    on_record: OnRecord | None = None,
    refused: dict[int, str] | None = None,
) -> Execution:
    """Run `plan` (steps in a valid order) as a DAG; `outputs` holds earlier successes.

    `on_record` sees each record as its step finishes (for streaming the audit trail live);
    a step in `refused` (step id → why) fails with that reason without running.
    """
    refused = refused or {}
    outputs = dict(outputs or {})
    limit = max(1, max_parallel)
    pending = list(plan)
    running: dict[asyncio.Task[dict[str, Any]], dict[str, Any]] = {}
    finished: dict[int, dict[str, Any]] = {}  # plan index → record
    index = {id(s): i for i, s in enumerate(plan)}
    failed = False
    while pending or running:
        if not failed:
            for step in list(pending):
                if len(running) >= limit:
                    break
                if all(d in outputs for d in step_dependencies(step)):
                    pending.remove(step)
                    task = asyncio.create_task(
                        _run_step(registry, step, outputs, round_no, refused.get(step["step_id"]))
                    )
                    running[task] = step
        if not running:
            break  # what is left waits on a failed step (or on nothing after a failure)
        done, _ = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
        for task in done:
            step = running.pop(task)
            record = task.result()
            finished[index[id(step)]] = record
            if record["status"] == "success":
                outputs[step["step_id"]] = record["output"]
            else:
                failed = True
            if on_record is not None:
                on_record(record)
    return Execution(records=[finished[i] for i in sorted(finished)], remaining=pending)
