"""Every path of the contract agent's graph, with the scripted model (seeds 000 + 001)."""

from __future__ import annotations

import asyncio

import pytest
from contract_harness import said, types

from dure.agents.contract import AGENT, prompts
from dure.events import Done, EvaluationResult, SourcesEvent, Thinking, ToolSelected


def evaluations(events: list) -> list[str]:
    """What the evaluator said, in order."""
    return [e.content for e in events if isinstance(e, EvaluationResult)]


def decisions(events: list) -> dict[str, str | None]:
    """Each decision's thinking line: node → the tier that made it."""
    return {e.step: e.decided_by for e in events if isinstance(e, Thinking) and e.decided_by}


def test_by_number_question_needs_one_llm_call(make_harness):
    h = make_harness({"respond": ["제5조(지체상금)에 따르면 납기 지연 시 1일당 1천분의 1입니다."]})
    events = h.turn("제5조 내용이 뭐야?")
    done = events[-1]
    assert isinstance(done, Done)
    assert done.usage.llm_calls == 1
    assert done.usage.decided_by == {"scope": "rule", "followup": "rule"}
    assert decisions(events) == {"scope_validator": "rule"}  # no previous turn to weigh
    selected = next(e for e in events if isinstance(e, ToolSelected))
    assert selected.tools == [{"name": "get_article_by_index", "args": {"article_no": "제5조"}}]
    retrieved, cited = [e for e in events if isinstance(e, SourcesEvent)]
    assert [(s.article_no, s.article_title, s.kind) for s in cited.content] == [
        ("제5조", "지체상금", "contract")
    ]
    assert (retrieved.stage, cited.stage) == ("retrieved", "cited")
    assert retrieved.content == cited.content
    assert "지체상금" in h.calls_by("respond")[0].prompt
    assert done.content.startswith("제5조")
    # The article is on screen before the first answer token.
    assert types(events) == [
        "planning",
        "tool_selected",
        "tool_result",
        "evaluation_result",
        "generating",
        "sources",
        "token",
        "sources",
        "done",
    ]


def test_out_of_scope_is_refused_without_tools_or_llm(make_harness):
    h = make_harness()
    events = h.turn("오늘 서울 날씨 어때?")
    assert events[-1].content == prompts.REFUSAL
    assert h.model.calls == []
    assert not {"planning", "tool_selected", "tool_result"} & set(types(events))


@pytest.mark.usefixtures("llm_tier")
def test_out_of_scope_undecided_by_rules_asks_the_fast_model_once(make_harness):
    h = make_harness({"scope_validator": [{"in_scope": False, "reasoning": "철학 질문"}]})
    events = h.turn("인생의 의미는 뭘까?")
    assert events[-1].content == prompts.REFUSAL
    assert events[-1].usage.llm_calls == 1
    assert h.model.calls[0].response_format is not None  # a JSON judgement, not free text
    assert "tool_selected" not in types(events)


@pytest.mark.usefixtures("llm_tier")
def test_undecided_question_judged_in_scope_goes_on_to_the_planner(make_harness):
    h = make_harness(
        {
            "scope_validator": [{"in_scope": True, "reasoning": "계약 관계 질문"}],
            "evaluator": [{"is_sufficient": True, "reasoning": "검색 결과로 충분"}],
            "respond": ["계약서에서 확인되지 않습니다."],
        }
    )
    events = h.turn("상대 회사가 연락이 안 되면 어떻게 해?")
    assert said(events) == "계약서에서 확인되지 않습니다."
    nodes = [c.node for c in h.model.calls]
    assert nodes == ["scope_validator", "evaluator", "respond"]
    # The question named no article: the first round searched it as asked, with no model call.
    [selected] = [e for e in events if isinstance(e, ToolSelected)]
    assert selected.tools == [
        {"name": "hybrid_search", "args": {"query": "상대 회사가 연락이 안 되면 어떻게 해?"}}
    ]


def test_greeting_is_answered_with_one_call_and_no_tools(make_harness):
    h = make_harness({"respond": ["안녕하세요! 계약서에 대해 무엇이든 물어보세요."]})
    events = h.turn("안녕하세요!")
    assert events[-1].usage.llm_calls == 1
    assert "tool_selected" not in types(events)
    sources = next(e for e in events if isinstance(e, SourcesEvent))
    assert sources.content == []


def test_seed_000_example_follow_up_uses_previous_turn_without_tools(make_harness):
    first = "제7조(계약의 해지)는 시정 요구 후 해지를 허용하며, 제8조 손해배상을 참조합니다."
    summary = "제8조(손해배상)에 따르면 위반 당사자가 손해를 배상합니다."
    h = make_harness({"respond": [first, summary]})
    h.turn("제7조 내용이 뭐야?")
    events = h.turn("그 참조항목들 내용 정리해서 보여줘봐")
    assert "tool_selected" not in types(events)
    assert said(events) == summary
    # The seed's flow: planner chooses no tool (by rule, no call) → respond.
    assert events[-1].usage.llm_calls == 1
    # ScopeValidator found "그" by rule: check_previous_context made no call.
    assert h.calls_by("check_previous_context") == []
    assert first in h.calls_by("respond")[1].prompt  # the previous turn is in the context
    # No tool ran this turn: the sources are the previous turn's.
    cited = [e for e in events if isinstance(e, SourcesEvent)][-1].content
    assert [s.article_no for s in cited] == ["제7조"]


@pytest.mark.usefixtures("llm_tier")
def test_follow_up_without_reference_words_asks_check_previous_context(make_harness):
    h = make_harness(
        {
            "respond": ["제2조에 따르면 2024년 12월 31일까지입니다.", "네, 연장 조항은 없습니다."],
            "check_previous_context": [{"need_previous_context": True, "reasoning": "후속"}],
        }
    )
    h.turn("제2조 보여줘")
    events = h.turn("연장은 가능해?")
    assert [c.node for c in h.model.calls[1:]] == ["check_previous_context", "respond"]
    assert decisions(events) == {"scope_validator": "rule", "check_previous_context": "llm"}
    assert "2024년 12월 31일" in h.calls_by("respond")[1].prompt
    assert said(events) == "네, 연장 조항은 없습니다."
    # Judged by the model, not pointed at by a rule: the question is searched as well, and the
    # previous turn with this search settles it by rule (no evaluator call).
    assert "tool_selected" in types(events)
    assert evaluations(events) == [prompts.FOLLOW_UP_SEARCHED]


@pytest.mark.usefixtures("llm_tier")
def test_a_follow_up_taken_wrongly_still_finds_its_article(make_harness):
    h = make_harness(
        {
            "respond": ["제4조에 따르면 영업비밀을 누설할 수 없습니다.", "1일당 1천분의 1입니다."],
            "check_previous_context": [{"need_previous_context": True, "reasoning": "후속"}],
        }
    )
    h.turn("제4조 보여줘")
    events = h.turn("납기 늦으면 하루에 얼마씩 물어내야 돼?")
    assert said(events) == "1일당 1천분의 1입니다."
    answer_prompt = h.calls_by("respond")[1].prompt
    assert "지체일수 1일당 계약금액의 1천분의 1" in answer_prompt  # 제5조, found by the search
    assert "영업비밀" in answer_prompt  # and the previous turn beside it


def test_a_bare_follow_up_naming_a_new_subject_is_searched(make_harness):
    """ "지체상금은?" leans on the previous turn in form (a rule says so), but the previous turn,
    on 제4조, holds no 납기: it is searched as well (the 1.5B model, given only the previous
    turn, echoed its own prompt)."""
    h = make_harness(
        {"respond": ["제4조에 따르면 영업비밀을 누설할 수 없습니다.", "1일당 1천분의 1입니다."]}
    )
    h.turn("제4조 보여줘")
    events = h.turn("납기 못 지키면?")
    assert decisions(events)["check_previous_context"] == "rule"
    assert "tool_selected" in types(events)
    assert evaluations(events) == [prompts.FOLLOW_UP_SEARCHED]
    assert "지체일수 1일당 계약금액의 1천분의 1" in h.calls_by("respond")[1].prompt


def test_a_bare_follow_up_on_the_previous_subject_is_answered_from_it(make_harness):
    h = make_harness({"respond": ["제4조에 따르면 영업비밀을 누설할 수 없습니다.", "3년입니다."]})
    h.turn("제4조 보여줘")
    events = h.turn("영업비밀은?")
    assert "tool_selected" not in types(events)
    assert "영업비밀" in h.calls_by("respond")[1].prompt


def test_an_answer_that_repeats_the_prompt_leaves_those_lines_out(make_harness):
    echo = (
        "## 직전 대화\n사용자: 제4조 보여줘\n\n(수집된 정보 없음)\n\n질문: 그거 어기면?\n"
        "제4조에 따르면 영업비밀을 누설하면 안 됩니다."
    )
    h = make_harness({"respond": ["제4조에 따르면 영업비밀을 누설할 수 없습니다.", echo]})
    h.turn("제4조 보여줘")
    events = h.turn("그거 어기면?")
    assert said(events).strip() == "제4조에 따르면 영업비밀을 누설하면 안 됩니다."
    notes = [e.content for e in events if isinstance(e, Thinking) and e.step == "respond"]
    assert "답변 지침을 그대로 옮긴 문장 4개를 답변에서 뺐습니다." in notes


def test_standard_comparison_keeps_the_two_documents_apart(make_harness):
    h = make_harness(
        {"respond": ["제3조는 30일, 표준계약서 제4조는 14일 이내 지급입니다."]}, standard=True
    )
    events = h.turn("제3조를 표준계약서와 비교해줘")
    assert events[-1].usage.llm_calls == 1  # rule plan, rule sufficiency, one answer
    assert types(events)[:3] == ["planning", "tool_selected", "tool_result"]
    prompt = h.calls_by("respond")[0].prompt
    user_part = prompt.index("## 사용자 계약서")
    standard_part = prompt.index("## 표준계약서")
    assert "30일 이내" in prompt[user_part:standard_part]
    assert "14일 이내에 대금" in prompt[standard_part:]
    cited = [(s.kind, s.article_no) for s in events[-1].sources]
    assert cited == [("contract", "제3조"), ("standard", "제4조")]


def test_executor_bookkeeping_in_the_thread_state(make_harness):
    h = make_harness({"respond": ["제7조에 따르면 …"]})
    h.turn("제7조 내용이 뭐야?", thread="book")
    graph = AGENT.build(h.ctx)
    state = asyncio.run(graph.aget_state({"configurable": {"thread_id": "book"}})).values
    assert state["explored_articles"] == ["제7조"]
    assert state["unexplored_articles"] == ["제8조"]  # cited by 제7조, not read yet
    [entry] = state["tool_history"]
    assert entry["name"] == "get_article_by_index" and entry["ok"] and entry["origin"] == "rule"
    assert state["collected_info"][0]["articles"][0]["title"] == "계약의 해지"
    assert state["iteration_count"] == 1
    assert [d["node"] for d in state["decision_log"]] == [
        "scope_validator",
        "check_previous_context",
        "planner",
        "evaluator",
    ]
    assert state["decision_log"][-1]["by"] == "rule"
