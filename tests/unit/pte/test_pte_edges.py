"""The four conditional edges, on hand-made states."""

from __future__ import annotations

from typing import Any

from dure.agent import Branch
from dure.agents.pte.graph import EDGES


def target(source: str, state: dict[str, Any]) -> str:
    """The node the graph goes to from `source` in `state` (branch name → node)."""
    branch = next(e for e in EDGES if isinstance(e, Branch) and e.source == source)
    return branch.paths[branch.route(state, None)]


def rec(status: str, round_no: int = 0, step_id: int = 1) -> dict:
    return {"step": {"step_id": step_id}, "status": status, "output": "", "round": round_no}


def test_after_intent_classifier() -> None:
    assert target("intent_classifier", {"needs_tool": True}) == "planner"
    assert target("intent_classifier", {"needs_tool": False}) == "final_answer"
    assert target("intent_classifier", {}) == "planner"  # the seed's default
    assert (
        target(
            "intent_classifier", {"error": "Intent classification failed", "error_code": "intent"}
        )
        == "error_handler"
    )


def test_after_planner() -> None:
    assert (
        target("planner", {"error": "Invalid JSON", "error_code": "invalid_json", "plan": []})
        == "error_handler"
    )
    assert target("planner", {"plan": [{"step_id": 1}]}) == "executor"
    assert target("planner", {"plan": []}) == "final_answer"


def test_after_executor_follows_the_seed() -> None:
    assert target("executor", {"past_steps": []}) == "final_answer"
    assert target("executor", {"past_steps": [rec("failure")], "plan": []}) == "replanner"
    assert (
        target("executor", {"past_steps": [rec("success")], "plan": [{"step_id": 2}]}) == "executor"
    )
    assert target("executor", {"past_steps": [rec("success")], "plan": []}) == "final_answer"


def test_after_executor_sees_a_failure_that_is_not_last() -> None:
    # Concurrent steps are recorded in plan order: step 1 failed, step 2 finished after it.
    state = {"past_steps": [rec("failure", step_id=1), rec("success", step_id=2)], "plan": []}
    assert target("executor", state) == "replanner"


def test_after_executor_ignores_failures_already_replanned() -> None:
    state = {
        "past_steps": [rec("failure", 0), rec("success", 1, step_id=2)],
        "replan_count": 1,
        "plan": [],
    }
    assert target("executor", state) == "final_answer"


def test_after_replanner() -> None:
    assert (
        target("replanner", {"error": "Replan limit exceeded: 2회", "error_code": "replan_limit"})
        == "error_handler"
    )
    assert target("replanner", {"plan": [{"step_id": 2}]}) == "executor"
