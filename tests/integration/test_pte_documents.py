"""Plan-then-execute over the owner's documents (`search_documents`, the real registry and a
real collection) with a scripted model: found passages reach the answer with their sources;
with no document registered the answer says so by rule and how to add one."""

from __future__ import annotations

from pathlib import Path

import pytest
from langgraph.checkpoint.memory import InMemorySaver

from dure import honest
from dure.agent import AgentContext
from dure.agents.pte import AGENT
from dure.events import Done, stream_turn
from dure.llm import ModelSet
from dure.retrieval import open_collection
from dure.settings import Settings
from dure.testing import ScriptedChatModel

pytestmark = pytest.mark.usefixtures("llm_tier")  # the intent call is scripted

RULES = """# 출장 규정

## 일비
국내 출장 일비는 하루 5만원이며 숙박비는 1박 10만원까지 실비로 지원한다.
"""
INTENT = {"intent": "new_question", "rewritten_query": "출장 일비 기준", "needs_tool": True}
SEARCH = {"plan": [{"step_id": 1, "tool": "search_documents", "input": "출장 일비 기준"}]}


async def _turn(
    settings: Settings,
    script: list,
    message: str = "내가 올린 문서에서 출장비 기준 찾아줘",
    **options: str,
) -> tuple[Done, ScriptedChatModel]:
    """One turn; `options`: the collection to search (`collection` or `documents_collection`)."""
    model = ScriptedChatModel(script)
    ctx = AgentContext(settings, ModelSet(settings, model), InMemorySaver(), dict(options))
    events = [e async for e in stream_turn(AGENT, ctx, "t", message)]
    assert isinstance(events[-1], Done)
    return events[-1], model


async def test_a_plan_searches_the_owners_documents(settings: Settings, tmp_path: Path) -> None:
    settings.search.store = "memory"
    path = tmp_path / "출장규정.md"
    path.write_text(RULES, encoding="utf-8")
    name = f"docs-{tmp_path.name[-8:]}"
    open_collection(name, settings).add_document(path, kind="document")
    done, model = await _turn(
        settings, [INTENT, SEARCH, "국내 출장 일비는 하루 5만원입니다."], collection=name
    )
    assert done.content == "국내 출장 일비는 하루 5만원입니다."
    assert "하루 5만원" in model.calls[-1].prompt  # the passage reached the answer
    assert [s.doc for s in done.sources] == ["출장규정"]


async def test_with_no_documents_the_answer_says_so_and_how_to_add_one(
    settings: Settings,
) -> None:
    done, model = await _turn(
        settings, [INTENT, SEARCH, {"plan": []}], documents_collection="k000000000000_documents"
    )
    assert done.content == honest.tools_failed([honest.NO_DOCUMENTS])
    assert "dure documents add" in done.content
    assert not any(c.node == "final_answer" for c in model.calls)  # nothing to guess from


async def test_a_plain_document_request_is_searched_even_when_the_planner_plans_nothing(
    settings: Settings,
) -> None:
    done, model = await _turn(
        settings,
        [INTENT, {"plan": []}, {"plan": []}],
        documents_collection="k000000000000_documents",
    )
    # the rule's step ran (search_documents with the request as its query) and failed honestly
    assert done.content == honest.tools_failed([honest.NO_DOCUMENTS])
    assert not any(c.node == "final_answer" for c in model.calls)


async def test_a_document_question_needs_a_tool_whatever_the_bank_says() -> None:
    from dure.korean.route import asks_documents

    assert asks_documents("내가 올린 문서에서 출장비 기준 찾아줘")
    assert asks_documents("사내 규정상 야근 식대는 얼마야?")
    assert not asks_documents("오늘 서울 날씨 검색해줘")
    assert not asks_documents("그림 그리는 법 알려줘")


async def test_a_plan_that_looks_nothing_up_gets_the_asked_search(settings: Settings) -> None:
    sum_only = {"plan": [{"step_id": 1, "tool": "calculator", "input": "2*3"}]}
    done, model = await _turn(
        settings,
        [INTENT, sum_only, {"plan": []}, "계산 결과는 6입니다."],
        documents_collection="k000000000000_documents",
    )
    # the planned step ran; the added search failed and is named after the answer, by rule
    assert done.content.startswith("계산 결과는 6입니다.")
    assert done.content.endswith(honest.partly_failed([honest.NO_DOCUMENTS]))


async def test_a_wikipedia_request_is_looked_up_whatever_the_classifier_and_planner_say(
    settings: Settings,
) -> None:
    # Wikipedia unreachable (a closed loopback port); the classifier says no tool is needed and
    # the planner plans nothing: the rule still asks Wikipedia, and its failure is the answer.
    settings.assistant.wikipedia_base_url = "http://127.0.0.1:9/{lang}"
    no_tool = {**INTENT, "needs_tool": False, "rewritten_query": "세종대왕 요약"}
    done, model = await _turn(
        settings,
        [no_tool, {"plan": []}, {"plan": []}],
        message="위키에서 세종대왕 문서 찾아서 3줄 요약해줘",
    )
    assert done.content.startswith(honest.tools_failed(["x"]).split("\n")[0])
    assert "위키백과" in done.content
    assert not any(c.node == "final_answer" for c in model.calls)  # nothing to guess from


async def test_a_figure_of_today_is_searched_whatever_the_planner_says(
    settings: Settings,
) -> None:
    # The 1.5B planner planned the clock for a current rate; the rule adds the web search, which
    # has no key here, so its failure is named after the date: no rate from the model's memory.
    settings.assistant.tavily_api_key = None
    clock_only = {"plan": [{"step_id": 1, "tool": "get_current_datetime", "input": ""}]}
    asked = {**INTENT, "rewritten_query": "한국은행 기준금리"}
    done, model = await _turn(
        settings,
        [asked, clock_only, {"plan": []}, "오늘 날짜를 확인했습니다."],
        message="한국은행 기준금리 지금 몇 프로야?",
    )
    assert done.content.startswith("오늘 날짜를 확인했습니다.")
    assert honest.partly_failed([]).strip() in done.content
    assert "TAVILY_API_KEY" in done.content  # the added web search ran, and its failure is named
