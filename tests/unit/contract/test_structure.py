"""The graph reads like seed 001's diagram; the state carries every field the seeds name."""

from __future__ import annotations

from langchain_core.messages import AIMessage, HumanMessage

from dure.agents.contract import AGENT
from dure.agents.contract.context import answer_context, previous_turn_from
from dure.agents.contract.graph import should_continue, should_execute_tools
from dure.agents.contract.state import ContractState

SEED_FIELDS = {
    "user_message", "messages", "contract_id", "need_previous_context", "previous_turn",
    "next_tools", "all_tools_skipped", "tool_history", "collected_info", "explored_articles",
    "unexplored_articles", "missing_info", "iteration_count", "decision_log", "final_response",
    "sources",
}  # fmt: skip


def test_state_has_every_seed_field():
    assert SEED_FIELDS <= set(ContractState.__annotations__)


def test_graph_nodes_and_edges_follow_the_seed(make_harness):
    drawn = AGENT.build(make_harness().ctx).get_graph()
    assert set(drawn.nodes) - {"__start__", "__end__"} == {
        "scope_validator",
        "check_previous_context",
        "planner",
        "executor",
        "parallel_executor",
        "evaluator",
        "respond",
    }
    edges = {(e.source, e.target) for e in drawn.edges}
    assert {
        ("__start__", "scope_validator"),
        ("scope_validator", "__end__"),
        ("scope_validator", "check_previous_context"),
        ("check_previous_context", "planner"),
        ("planner", "respond"),
        ("planner", "evaluator"),
        ("planner", "executor"),
        ("planner", "parallel_executor"),
        ("executor", "evaluator"),
        ("parallel_executor", "evaluator"),
        ("evaluator", "planner"),
        ("evaluator", "respond"),
        ("respond", "__end__"),
    } == edges


def test_branch_functions(make_harness):
    deps = AGENT.bind(make_harness().ctx).deps
    call = {"name": "hybrid_search", "args": {}, "signature": "s", "origin": "llm"}
    assert should_execute_tools({"next_tools": []}, deps) == "no_tools"
    skipped = {"next_tools": [], "all_tools_skipped": True}
    assert should_execute_tools(skipped, deps) == "skip_to_evaluator"
    assert should_execute_tools({"next_tools": [call]}, deps) == "execute_sequential"
    assert should_execute_tools({"next_tools": [call, call]}, deps) == "execute_parallel"
    deps.settings.contract.max_parallel_tools = 1
    assert should_execute_tools({"next_tools": [call, call]}, deps) == "execute_sequential"
    log = [{"node": "evaluator", "action": "continue"}, {"node": "planner"}]
    assert should_continue({"decision_log": log}, deps) == "continue"
    finished = {"decision_log": [{"node": "evaluator", "action": "finish"}]}
    assert should_continue(finished, deps) == "finish"


def test_previous_turn_is_the_last_complete_exchange():
    messages = [
        HumanMessage("제1조?"),
        AIMessage("제1조는 목적입니다.", additional_kwargs={"sources": [{"doc": "d"}]}),
        HumanMessage("제2조?"),
        AIMessage("제2조는 정의입니다."),
        HumanMessage("그건 왜?"),
    ]
    turn = previous_turn_from(messages)
    assert [t["content"] for t in turn] == ["제2조?", "제2조는 정의입니다."]
    assert previous_turn_from([HumanMessage("첫 질문")]) == []


def test_answer_context_separates_documents_and_respects_the_budget():
    big = "가" * 10_000
    collected = [
        {
            "ok": True,
            "content": "",
            "articles": [
                {"kind": "contract", "doc": "내 계약서", "article_no": "제1조", "text": big},
                {"kind": "standard", "doc": "표준", "article_no": "제1조", "text": "표준 본문"},
            ],
        },
        {"ok": False, "content": "검색 실패", "articles": []},
    ]
    context = answer_context({"collected_info": collected})
    assert context.startswith("## 사용자 계약서: 내 계약서")
    assert len(context) < 6500
    assert "## 표준계약서" in context and "표준 본문" in context
    assert "검색 실패" in context
