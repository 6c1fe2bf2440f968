"""Failures end gracefully: failing or slow tools, invalid JSON, missing or switched contracts."""

from __future__ import annotations

from pathlib import Path

import pytest
from contract_harness import CONTRACT, STANDARD, FakeLibrary, said

from dure.agent import UserTurn
from dure.agents.contract import AGENT, prompts
from dure.agents.contract.library import ContractFileError
from dure.errors import DureError
from dure.events import ErrorEvent, ToolResultEvent
from dure.llm.constrained import ToolReplyError
from dure.testing import tool_call

SUFFICIENT = {"is_sufficient": True, "reasoning": "충분", "missing_info": None}


def test_failing_tool_is_recorded_not_a_crash(make_harness):
    lib = FakeLibrary(fail=RuntimeError("index offline"))
    h = make_harness(
        {
            "planner": [tool_call("hybrid_search", query="위약금")],
            "evaluator": [SUFFICIENT],
            "respond": ["검색에 실패해 계약서에서 확인하지 못했습니다."],
        },
        library=lib,
    )
    events = h.turn("위약금은 얼마야?")
    result = next(e for e in events if isinstance(e, ToolResultEvent))
    assert not result.ok and "index offline" in result.content
    assert "실패" in h.calls_by("evaluator")[0].prompt
    assert events[-1].content.startswith("검색에 실패")
    assert not any(isinstance(e, ErrorEvent) for e in events)


def test_slow_tool_times_out_as_a_failure(make_harness, settings):
    settings.contract.tool_timeout = 0.05
    lib = FakeLibrary(delay=1.0)
    h = make_harness(
        {
            "planner": [tool_call("hybrid_search", query="위약금")],
            "evaluator": [SUFFICIENT],
            "respond": ["답"],
        },
        library=lib,
    )
    events = h.turn("위약금은 얼마야?")
    result = next(e for e in events if isinstance(e, ToolResultEvent))
    assert not result.ok and "초 안에 끝나지 않았습니다" in result.content
    assert events[-1].content == "답"


def test_unknown_tool_from_the_model_is_ignored(make_harness):
    h = make_harness(
        {
            "planner": [tool_call("delete_contract", id="x")],
            "evaluator": [SUFFICIENT],
            "respond": ["답"],
        }
    )
    events = h.turn("위약금은 얼마야?")
    [selected] = [e for e in events if e.type == "tool_selected"]
    assert selected.tools == [{"name": "hybrid_search", "args": {"query": "위약금은 얼마야?"}}]
    assert events[-1].content == "답"


def test_a_planner_reply_that_never_closes_plans_nothing_and_the_turn_goes_on(make_harness):
    looping = ToolReplyError("looping tool reply: '网球', '高尔夫', '网球', '高尔夫'")
    insufficient = {"is_sufficient": False, "reasoning": "부족", "missing_info": "위약금 액수"}
    h = make_harness(
        {
            "evaluator": [insufficient, SUFFICIENT],
            "planner": [looping],
            "respond": ["계약서에서 확인했습니다."],
        }
    )
    events = h.turn("위약금은 얼마야?")
    assert len(h.calls_by("planner")) == 1
    [selected] = [e for e in events if e.type == "tool_selected"]  # the rule's search alone
    assert selected.tools == [{"name": "hybrid_search", "args": {"query": "위약금은 얼마야?"}}]
    assert "끝맺어지지 않아" in " ".join(e.content for e in events if e.type == "thinking")
    assert events[-1].content == "계약서에서 확인했습니다."
    assert not any(isinstance(e, ErrorEvent) for e in events)


@pytest.mark.parametrize("bad", ["충분합니다!", {"reasoning": "is_sufficient 없음"}])
def test_invalid_evaluator_json_ends_with_a_korean_message(make_harness, bad):
    h = make_harness({"planner": [tool_call("hybrid_search", query="위약금")], "evaluator": [bad]})
    events = h.turn("위약금은 얼마야?")
    errors = [e for e in events if isinstance(e, ErrorEvent)]
    assert [e.code for e in errors] == ["structured_output"]
    assert events[-1].content == prompts.STRUCTURED_ERROR
    assert h.calls_by("respond") == []  # fail closed: no answer on an unjudged state


@pytest.mark.usefixtures("llm_tier")
def test_invalid_previous_context_json_ends_gracefully(make_harness):
    h = make_harness(
        {
            "respond": ["제2조에 따르면 1년입니다."],
            "check_previous_context": ["네 필요합니다"],
        }
    )
    h.turn("제2조 보여줘")
    events = h.turn("연장은 가능해?")
    assert events[-1].content == prompts.STRUCTURED_ERROR
    assert h.calls_by("planner") == []


@pytest.mark.usefixtures("llm_tier")
def test_invalid_scope_json_ends_gracefully(make_harness):
    h = make_harness({"scope_validator": ["글쎄요"]})
    events = h.turn("인생의 의미는 뭘까?")
    assert events[-1].content == prompts.STRUCTURED_ERROR
    assert [e.code for e in events if isinstance(e, ErrorEvent)] == ["structured_output"]


def test_thread_without_contract_is_told_what_to_do(make_harness):
    h = make_harness(contract_id=None)
    events = h.turn("제5조 내용이 뭐야?")
    assert events[-1].content == prompts.NO_CONTRACT
    assert h.model.calls == []


def test_thread_stays_bound_to_its_contract(make_harness):
    h = make_harness({"respond": ["제1조는 목적입니다."]})
    h.turn("제1조 보여줘")
    h.ctx.options["contract_id"] = h.standard_id  # another document on the same thread
    events = h.turn("제1조 보여줘")
    assert [e.code for e in events if isinstance(e, ErrorEvent)] == ["contract_conflict"]
    assert "소프트웨어 개발 용역 계약서" in events[-1].content
    # Without naming a contract, the thread keeps using its own.
    del h.ctx.options["contract_id"]
    h.model.add("제1조는 목적입니다.")
    h.model.responder = None
    events = h.turn("제1조 보여줘")
    assert said(events) == "제1조는 목적입니다."


def test_thread_stays_bound_to_its_standard_contract(make_harness):
    h = make_harness({"respond": ["제1조는 목적입니다."]}, standard=True)
    h.turn("제1조 보여줘")
    h.ctx.options["standard_id"] = h.contract_id
    events = h.turn("제1조 보여줘")
    assert [e.code for e in events if isinstance(e, ErrorEvent)] == ["contract_conflict"]
    assert "소프트웨어 개발 표준계약서" in events[-1].content


def test_make_input_indexes_files_once_and_rejects_missing_ones(make_harness, tmp_path: Path):
    contract = tmp_path / "계약서.md"
    contract.write_text(CONTRACT)
    standard = tmp_path / "표준.md"
    standard.write_text(STANDARD)
    lib = FakeLibrary()
    h = make_harness(library=lib, contract_id=None, contract=STANDARD)
    h.ctx.options.update(contract=str(contract), standard=standard)
    first = AGENT.bind(h.ctx).make_input(UserTurn("제1조"))
    second = AGENT.bind(h.ctx).make_input(UserTurn("제2조"))
    assert first["contract_id"] == second["contract_id"] == lib.add_document(CONTRACT)
    assert first["standard_contract_id"] == h.standard_id
    assert len(lib.docs) == 2  # same content, same id: nothing indexed twice
    h.ctx.options["contract"] = str(tmp_path / "없는파일.md")
    with pytest.raises(ContractFileError) as err:
        AGENT.bind(h.ctx).make_input(UserTurn("제1조"))
    assert isinstance(err.value, DureError) and "찾을 수 없습니다" in str(err.value)
