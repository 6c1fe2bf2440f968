"""The planner ⇄ executor ⇄ evaluator loop: parallel tools, duplicates, missing_info, limits."""

from __future__ import annotations

from contract_harness import FakeLibrary, types

from dure.events import EvaluationResult, ToolResultEvent
from dure.testing import tool_call, tool_calls

INSUFFICIENT = {
    "is_sufficient": False,
    "reasoning": "해지 후 책임이 없음",
    "missing_info": "손해배상",
}
SUFFICIENT = {"is_sufficient": True, "reasoning": "충분", "missing_info": None}


def test_parallel_tools_run_at_once(make_harness):
    lib = FakeLibrary(delay=0.3)  # long enough for the threads to overlap on a busy machine
    h = make_harness(
        {
            "planner": [
                tool_calls(
                    ("hybrid_search", {"query": "대금 지급"}),
                    ("hybrid_search", {"query": "지체상금"}),
                    ("get_article_by_title", {"title": "검수"}),
                )
            ],
            "evaluator": [SUFFICIENT],
            "respond": ["제3조와 제5조, 제6조를 보면 됩니다."],
        },
        library=lib,
    )
    events = h.turn("돈 받는 시기와 늦을 때 불이익을 알려줘")
    # The question itself (rule) and the model's two queries were searched at once.
    assert lib.max_in_flight == 3
    assert len([e for e in events if isinstance(e, ToolResultEvent)]) == 4
    assert events[-1].usage.llm_calls == 3  # planner, evaluator, respond (scope by rule)


def test_parallel_executor_respects_max_parallel_tools(make_harness, settings):
    settings.contract.max_parallel_tools = 2
    lib = FakeLibrary(delay=0.2)
    queries = ["대금", "지체상금", "검수", "비밀유지"]
    h = make_harness(
        {
            "planner": [tool_calls(*[("hybrid_search", {"query": q}) for q in queries])],
            "evaluator": [SUFFICIENT],
            "respond": ["답"],
        },
        library=lib,
    )
    h.turn("돈과 비밀에 관한 의무 전부")
    assert len(lib.searches) == 5  # the question itself, then the model's four queries
    assert lib.max_in_flight == 2


def test_tools_run_one_by_one_when_parallelism_is_off(make_harness, settings):
    settings.contract.max_parallel_tools = 1  # should_execute_tools → execute_sequential
    lib = FakeLibrary(delay=0.2)
    h = make_harness(
        {
            "planner": [tool_call("hybrid_search", query="위약")],
            "evaluator": [SUFFICIENT],
            "respond": ["답"],
        },
        library=lib,
    )
    h.turn("계약을 어기면 어떻게 돼?")
    assert len(lib.searches) == 2
    assert lib.max_in_flight == 1


def test_evaluator_missing_info_feeds_the_next_plan(make_harness):
    lib = FakeLibrary()
    h = make_harness(
        {
            "planner": [
                tool_call("hybrid_search", query="해지"),
                tool_call("get_article_by_title", title="손해배상"),
            ],
            "evaluator": [INSUFFICIENT, SUFFICIENT],
            "respond": ["제7조와 제8조에 따라 해지하고 배상을 청구할 수 있습니다."],
        },
        library=lib,
    )
    events = h.turn("계약을 어기면 해지하고 돈도 받을 수 있어?")
    planner_calls = h.calls_by("planner")
    assert [c.tool_choice for c in planner_calls] == ["auto", "auto"]
    assert "missing_info: 손해배상" in planner_calls[1].prompt
    assert "hybrid_search" in planner_calls[1].prompt  # the tool history is shown
    evaluations = [e for e in events if isinstance(e, EvaluationResult)]
    assert [(e.is_sufficient, e.missing_info) for e in evaluations] == [
        (False, "손해배상"),
        (True, None),
    ]
    cited = {s.article_no for s in events[-1].sources}
    assert {"제7조", "제8조"} <= cited


def test_all_duplicate_tools_skip_to_evaluator(make_harness):
    lib = FakeLibrary()
    h = make_harness(
        {
            "planner": [
                tool_call("hybrid_search", query="해지"),
                # Same call after normalisation (spacing, the schema's default top_k).
                tool_call("hybrid_search", query="  해지 ", top_k=3),
            ],
            "evaluator": [INSUFFICIENT],
            "respond": ["제7조에 따라 해지할 수 있습니다."],
        },
        library=lib,
    )
    events = h.turn("계약을 중간에 끝내려면 어떻게 해?")
    assert len(lib.searches) == 2  # the question and "해지"; the duplicate never ran
    assert types(events).count("tool_selected") == 1
    assert types(events).count("tool_result") == 2  # both in the first round
    # planner → evaluator directly; nothing new since the last judgement, so no model call.
    evaluations = [e for e in events if isinstance(e, EvaluationResult)]
    assert len(evaluations) == 2 and "새 정보가 없어" in evaluations[1].content
    assert len(h.calls_by("evaluator")) == 1
    assert events[-1].content == "제7조에 따라 해지할 수 있습니다."


def test_rule_suggestion_is_never_forced_on_later_iterations(make_harness):
    lib = FakeLibrary()
    h = make_harness(
        {
            # Iteration 1: the rule suggests get_article_by_title("계약의 해지"), the model adds
            # a search. Iteration 2: the model chooses nothing → answer.
            "planner": [tool_call("hybrid_search", query="손해배상"), ""],
            "evaluator": [INSUFFICIENT],
            "respond": ["제7조에 따릅니다."],
        },
        library=lib,
    )
    events = h.turn("계약의 해지 조건과 위약 관계는?")
    selected = [e for e in events if e.type == "tool_selected"]
    assert [t["name"] for t in selected[0].tools] == ["get_article_by_title", "hybrid_search"]
    assert len(selected) == 1
    assert all(c.tool_choice == "auto" for c in h.calls_by("planner"))
    assert len(h.calls_by("planner")) == 2
    assert "get_article_by_title" in h.calls_by("planner")[0].prompt  # shown as a hint


def test_title_question_is_sufficient_by_rule(make_harness):
    h = make_harness({"respond": ["제8조(손해배상)에 따르면 …"]})
    events = h.turn("손해배상 조항 보여줘")
    assert events[-1].usage.llm_calls == 1  # no planner call (pure lookup), no evaluator call
    assert [s.article_no for s in events[-1].sources] == ["제8조"]


def test_max_iterations_stops_the_loop(make_harness):
    lib = FakeLibrary()
    h = make_harness(
        {
            "planner": [
                tool_call("hybrid_search", query=q) for q in ("해지", "위약", "대금", "검수")
            ],
            "evaluator": [INSUFFICIENT, INSUFFICIENT, INSUFFICIENT],
            "respond": ["찾은 범위에서 답합니다."],
        },
        library=lib,
    )
    events = h.turn("계약 위반 시 모든 책임을 정리해줘")
    evaluations = [e for e in events if isinstance(e, EvaluationResult)]
    assert len(evaluations) == 4
    assert not evaluations[-1].is_sufficient and "4회" in evaluations[-1].content
    assert len(h.calls_by("evaluator")) == 3  # the 4th evaluation is the limit, no model
    assert len(h.calls_by("planner")) == 4
    assert "탐색 한도" in h.calls_by("respond")[0].prompt
    assert events[-1].content == "찾은 범위에서 답합니다."


def test_max_iterations_setting_is_honoured(make_harness, settings):
    settings.contract.max_iterations = 2
    h = make_harness(
        {
            "planner": [tool_call("hybrid_search", query=q) for q in ("해지", "위약")],
            "evaluator": [INSUFFICIENT],
            "respond": ["답"],
        }
    )
    h.turn("계약 위반 시 책임")
    assert len(h.calls_by("planner")) == 2
    assert len(h.calls_by("evaluator")) == 1
