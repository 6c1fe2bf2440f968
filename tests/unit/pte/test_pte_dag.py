"""The DAG executor: concurrency where inputs allow it, order where they do not."""

from __future__ import annotations

from pydantic import BaseModel

from dure.agents.pte.dag import primary_argument, run_plan, successful_outputs, tool_args
from dure.tools.base import Tool, ToolRegistry


def steps(*specs: tuple) -> list[dict]:
    out = []
    for sid, tool, key, value in specs:
        out.append({"step_id": sid, "tool": tool, key: value})
    return out


async def test_independent_steps_run_concurrently(probe) -> None:
    reg = probe.registry(probe.tool("a"), probe.tool("b"), probe.tool("c"))
    plan = steps((1, "a", "input", "x"), (2, "b", "input", "y"), (3, "c", "input", "z"))
    run = await run_plan(plan, reg, max_parallel=4)
    assert probe.max_active == 3
    assert [r["status"] for r in run.records] == ["success"] * 3
    assert run.remaining == []


async def test_concurrency_is_bounded(probe) -> None:
    reg = probe.registry(*(probe.tool(n) for n in "abcde"))
    plan = steps(*((i + 1, n, "input", n) for i, n in enumerate("abcde")))
    run = await run_plan(plan, reg, max_parallel=2)
    assert probe.max_active == 2
    assert len(run.records) == 5


async def test_chain_passes_outputs_in_order(probe) -> None:
    reg = probe.registry(probe.tool("search"), probe.tool("summarize"), probe.tool("translate"))
    plan = steps(
        (1, "search", "input", "LangGraph"),
        (2, "summarize", "input_from", "step_1"),
        (3, "translate", "input_from", "step_2"),
    )
    run = await run_plan(plan, reg)
    assert probe.started == ["search", "summarize", "translate"]
    assert probe.max_active == 1
    assert run.records[-1]["output"] == "translate(summarize(search(LangGraph)))"


async def test_records_keep_plan_order_not_finish_order(probe) -> None:
    reg = probe.registry(probe.tool("slow", delay=0.05), probe.tool("fast", delay=0.0))
    seen: list[str] = []
    run = await run_plan(
        steps((1, "slow", "input", "x"), (2, "fast", "input", "y")),
        reg,
        on_record=lambda r: seen.append(r["step"]["tool"]),
    )
    assert seen == ["fast", "slow"]  # streamed as they finish
    assert [r["step"]["step_id"] for r in run.records] == [1, 2]  # audit trail in plan order


async def test_fan_in_joins_outputs(probe) -> None:
    reg = probe.registry(probe.tool("a"), probe.tool("b"), probe.tool("merge"))
    plan = steps((1, "a", "input", "1"), (2, "b", "input", "2"))
    plan.append({"step_id": 3, "tool": "merge", "input_from": ["step_1", "step_2"]})
    await run_plan(plan, reg)
    assert probe.inputs["merge"] == "a(1)\n\nb(2)"


async def test_failure_stops_new_steps_and_leaves_them_in_the_plan(probe) -> None:
    reg = probe.registry(
        probe.tool("bad", fail=True), probe.tool("slow", delay=0.05), probe.tool("after")
    )
    plan = steps(
        (1, "bad", "input", "x"),
        (2, "slow", "input", "y"),
        (3, "after", "input_from", "step_1"),
    )
    run = await run_plan(plan, reg)
    # The step already running when the failure came finishes and is recorded.
    assert [(r["step"]["step_id"], r["status"]) for r in run.records] == [
        (1, "failure"),
        (2, "success"),
    ]
    assert "bad 실패" in run.records[0]["output"]
    assert [s["step_id"] for s in run.remaining] == [3]
    assert "after" not in probe.started


async def test_no_new_step_starts_after_a_failure(probe) -> None:
    reg = probe.registry(probe.tool("bad", fail=True), probe.tool("next"))
    plan = steps((1, "bad", "input", "x"), (2, "next", "input", "y"))
    run = await run_plan(plan, reg, max_parallel=1)
    assert probe.started == ["bad"]
    assert [s["step_id"] for s in run.remaining] == [2]


async def test_earlier_outputs_resolve_references(probe) -> None:
    reg = probe.registry(probe.tool("summarize"))
    plan = [{"step_id": 3, "tool": "summarize", "input_from": "step_1"}]
    run = await run_plan(plan, reg, outputs={1: "이전 결과"}, round_no=1)
    assert probe.inputs["summarize"] == "이전 결과"
    assert run.records[0]["round"] == 1


async def test_record_has_timing_and_sources() -> None:
    from dure.sources import Source
    from dure.tools.base import ToolResult

    class Q(BaseModel):
        query: str

    def search(query: str) -> ToolResult:
        return ToolResult(ok=True, content="결과", sources=[Source(doc="위키", kind="web")])

    run = await run_plan(
        [{"step_id": 1, "tool": "search", "input": "q"}],
        ToolRegistry([Tool("search", "", Q, search)]),
    )
    rec = run.records[0]
    assert rec["elapsed_ms"] >= 0 and rec["started_at"].endswith("+09:00")
    assert rec["sources"][0]["doc"] == "위키"


def test_arguments_bind_to_the_first_required_field() -> None:
    class Args(BaseModel):
        units: str = "metric"
        city: str

    reg = ToolRegistry([Tool("get_weather", "", Args, lambda city, units: city)])
    assert primary_argument(Args) == "city"
    assert tool_args(reg, {"step_id": 1, "tool": "get_weather", "input": "서울"}, {}) == {
        "city": "서울"
    }
    given = {"city": "부산", "units": "imperial"}
    assert tool_args(reg, {"step_id": 1, "tool": "get_weather", "input": given}, {}) == given


async def test_unknown_tool_is_a_failed_step() -> None:
    run = await run_plan([{"step_id": 1, "tool": "nope", "input": "x"}], ToolRegistry())
    assert run.records[0]["status"] == "failure"


def test_successful_outputs_prefers_later_successes() -> None:
    past = [
        {"step": {"step_id": 1}, "status": "success", "output": "a"},
        {"step": {"step_id": 2}, "status": "failure", "output": "err"},
        {"step": {"step_id": 2}, "status": "success", "output": "b"},
    ]
    assert successful_outputs(past) == {1: "a", 2: "b"}
