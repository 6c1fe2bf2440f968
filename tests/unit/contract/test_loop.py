"""The planner ⇄ executor ⇄ evaluator loop: parallel tools, duplicates, missing_info, limits."""

from __future__ import annotations

from contract_harness import FakeLibrary, said, types

from dure.events import EvaluationResult, ToolResultEvent
from dure.testing import tool_call, tool_calls

INSUFFICIENT = {
    "is_sufficient": False,
    "reasoning": "해지 후 책임이 없음",
    "missing_info": "손해배상",
}
SUFFICIENT = {"is_sufficient": True, "reasoning": "충분", "missing_info": None}


def test_first_round_is_the_rules_and_the_model_plans_the_second(make_harness):
    lib = FakeLibrary()
    h = make_harness(
        {"evaluator": [SUFFICIENT], "respond": ["제7조에 따라 해지할 수 있습니다."]},
        library=lib,
    )
    events = h.turn("계약을 중간에 끝내려면 어떻게 해?")
    assert lib.searches[0]["query"] == "계약을 중간에 끝내려면 어떻게 해?"
    assert h.calls_by("planner") == []  # the question itself was searched, by rule
    assert [c.node for c in h.model.calls] == ["evaluator", "respond"]
    assert events[-1].usage.llm_calls == 2


def test_evaluator_and_answer_share_their_prompt_up_to_the_task(make_harness):
    h = make_harness({"evaluator": [SUFFICIENT], "respond": ["제7조에 따릅니다."]})
    h.turn("계약을 중간에 끝내려면 어떻게 해?")
    judged, answered = h.calls_by("evaluator")[0], h.calls_by("respond")[0]
    # System prompt, collected articles and question are one prefix; only the task differs.
    assert [m.content for m in judged.messages[:2]] == [m.content for m in answered.messages[:2]]
    assert "질문: 계약을 중간에 끝내려면" in answered.messages[1].content
    assert judged.messages[2].content != answered.messages[2].content


def test_parallel_tools_run_at_once(make_harness):
    lib = FakeLibrary(delay=0.3)  # long enough for the threads to overlap on a busy machine
    h = make_harness(
        {
            "planner": [
                tool_calls(
                    ("hybrid_search", {"query": "대금 지급"}),
                    ("hybrid_search", {"query": "지체상금"}),
                    ("hybrid_search", {"query": "검수"}),
                )
            ],
            "evaluator": [INSUFFICIENT, SUFFICIENT],
            "respond": ["제3조와 제5조, 제6조를 보면 됩니다."],
        },
        library=lib,
    )
    events = h.turn("돈 받는 시기와 늦을 때 불이익을 알려줘")
    # The question itself (first round, rule), then the model's three calls at once.
    assert lib.max_in_flight == 3
    assert len([e for e in events if isinstance(e, ToolResultEvent)]) == 4
    assert events[-1].usage.llm_calls == 4  # evaluator, planner, evaluator, respond


def test_parallel_executor_respects_max_parallel_tools(make_harness, settings):
    settings.contract.max_parallel_tools = 2
    lib = FakeLibrary(delay=0.2)
    queries = ["대금", "지체상금", "검수", "비밀유지"]
    h = make_harness(
        {
            "planner": [tool_calls(*[("hybrid_search", {"query": q}) for q in queries])],
            "evaluator": [INSUFFICIENT, SUFFICIENT],
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
            "planner": [
                tool_calls(
                    ("hybrid_search", {"query": "위약"}), ("hybrid_search", {"query": "해지"})
                )
            ],
            "evaluator": [INSUFFICIENT, SUFFICIENT],
            "respond": ["답"],
        },
        library=lib,
    )
    h.turn("계약을 어기면 어떻게 돼?")
    assert len(lib.searches) == 3
    assert lib.max_in_flight == 1


def test_evaluator_missing_info_feeds_the_next_plan(make_harness):
    lib = FakeLibrary()
    h = make_harness(
        {
            "planner": [tool_call("get_article_by_title", title="손해배상")],
            "evaluator": [INSUFFICIENT, SUFFICIENT],
            "respond": ["제7조와 제8조에 따라 해지하고 배상을 청구할 수 있습니다."],
        },
        library=lib,
    )
    events = h.turn("계약을 어기면 해지하고 돈도 받을 수 있어?")
    [plan] = h.calls_by("planner")
    assert plan.tool_choice == "auto"
    assert "missing_info: 손해배상" in plan.prompt
    assert "hybrid_search" in plan.prompt  # the first round's search is in the tool history
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
            # Same call as the first round's after normalisation (spacing, default top_k).
            "planner": [
                tool_call("hybrid_search", query="  계약을 중간에 끝내려면 어떻게 해? ", top_k=3)
            ],
            "evaluator": [INSUFFICIENT],
            "respond": ["제7조에 따라 해지할 수 있습니다."],
        },
        library=lib,
    )
    events = h.turn("계약을 중간에 끝내려면 어떻게 해?")
    assert len(lib.searches) == 1  # the duplicate never ran
    assert types(events).count("tool_selected") == 1
    # planner → evaluator directly; nothing new since the last judgement, so no model call.
    evaluations = [e for e in events if isinstance(e, EvaluationResult)]
    assert len(evaluations) == 2 and "새 정보가 없어" in evaluations[1].content
    assert len(h.calls_by("evaluator")) == 1
    assert said(events) == "제7조에 따라 해지할 수 있습니다."


def test_named_articles_and_a_search_are_sufficient_by_rule(make_harness):
    lib = FakeLibrary()
    h = make_harness({"respond": ["제7조에 따릅니다."]}, library=lib)
    events = h.turn("계약의 해지 조건과 위약 관계는?")
    [selected] = [e for e in events if e.type == "tool_selected"]
    # The title it names and a search of the question (it asks more than the title holds).
    assert [t["name"] for t in selected.tools] == ["get_article_by_title", "hybrid_search"]
    assert [c.node for c in h.model.calls] == ["respond"]


def test_rule_suggestion_is_never_forced_on_later_iterations(make_harness):
    h = make_harness(
        {"planner": [""], "evaluator": [INSUFFICIENT], "respond": ["제7조에 따릅니다."]}
    )
    events = h.turn("계약을 중간에 끝내려면 어떻게 해?")
    assert len([e for e in events if e.type == "tool_selected"]) == 1
    [plan] = h.calls_by("planner")  # the second round: the model chose nothing → answer
    assert plan.tool_choice == "auto" and "missing_info: 손해배상" in plan.prompt
    assert said(events) == "제7조에 따릅니다."


def test_title_question_is_sufficient_by_rule(make_harness):
    h = make_harness({"respond": ["제8조(손해배상)에 따르면 …"]})
    events = h.turn("손해배상 조항 보여줘")
    assert events[-1].usage.llm_calls == 1  # no planner call (pure lookup), no evaluator call
    assert [s.article_no for s in events[-1].sources] == ["제8조"]


def test_max_iterations_stops_the_loop(make_harness):
    lib = FakeLibrary()
    h = make_harness(
        {
            "planner": [tool_call("hybrid_search", query=q) for q in ("해지", "위약", "대금")],
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
    assert len(h.calls_by("planner")) == 3  # rounds 2–4; the first is the rules'
    assert "탐색 한도" in h.calls_by("respond")[0].prompt
    assert events[-1].content.startswith("찾은 범위에서 답합니다.")


def test_max_iterations_setting_is_honoured(make_harness, settings):
    settings.contract.max_iterations = 2
    h = make_harness(
        {
            "planner": [tool_call("hybrid_search", query="해지")],
            "evaluator": [INSUFFICIENT],
            "respond": ["답"],
        }
    )
    h.turn("계약 위반 시 책임")
    assert len(h.calls_by("planner")) == 1
    assert len(h.calls_by("evaluator")) == 1
