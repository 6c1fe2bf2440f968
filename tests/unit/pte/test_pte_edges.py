"""The four conditional edges, on hand-made states."""

from __future__ import annotations

from dure.agents.pte.graph import (
    after_executor,
    after_intent_classifier,
    after_planner,
    after_replanner,
)


def rec(status: str, round_no: int = 0, step_id: int = 1) -> dict:
    return {"step": {"step_id": step_id}, "status": status, "output": "", "round": round_no}


def test_after_intent_classifier() -> None:
    assert after_intent_classifier({"needs_tool": True}) == "planner"
    assert after_intent_classifier({"needs_tool": False}) == "final_answer"
    assert after_intent_classifier({}) == "planner"  # the seed's default
    assert after_intent_classifier({"error": "Intent classification failed"}) == "error_handler"


def test_after_planner() -> None:
    assert after_planner({"error": "Invalid JSON", "plan": []}) == "error_handler"
    assert after_planner({"plan": [{"step_id": 1}]}) == "executor"
    assert after_planner({"plan": []}) == "final_answer"


def test_after_executor_follows_the_seed() -> None:
    assert after_executor({"past_steps": []}) == "final_answer"
    assert after_executor({"past_steps": [rec("failure")], "plan": []}) == "replanner"
    assert after_executor({"past_steps": [rec("success")], "plan": [{"step_id": 2}]}) == "executor"
    assert after_executor({"past_steps": [rec("success")], "plan": []}) == "final_answer"


def test_after_executor_sees_a_failure_that_is_not_last() -> None:
    # Concurrent steps are recorded in plan order: step 1 failed, step 2 finished after it.
    state = {"past_steps": [rec("failure", step_id=1), rec("success", step_id=2)], "plan": []}
    assert after_executor(state) == "replanner"


def test_after_executor_ignores_failures_already_replanned() -> None:
    state = {
        "past_steps": [rec("failure", 0), rec("success", 1, step_id=2)],
        "replan_count": 1,
        "plan": [],
    }
    assert after_executor(state) == "final_answer"


def test_after_replanner() -> None:
    assert after_replanner({"error": "Replan limit exceeded: 2회"}) == "error_handler"
    assert after_replanner({"plan": [{"step_id": 2}]}) == "executor"
