"""Plan-then-execute asks before a step whose tool needs approval: every approval before any
step runs, the answer as the next message, the executor still LLM-free."""

from __future__ import annotations

import pytest
from test_pte_scenarios import done, harness, intent, plan

from dure.events import Question, ToolResultEvent
from dure.settings import Settings

pytestmark = pytest.mark.usefixtures("llm_tier")


async def test_a_step_that_needs_approval_waits_for_it(settings: Settings) -> None:
    settings.approvals = {"pte": {"get_weather": "ask"}}
    h = harness(
        settings,
        [
            intent("new_question", "서울 날씨와 뉴스", True),
            plan(
                {"step_id": 1, "tool": "web_search", "input": "서울 뉴스"},
                {"step_id": 2, "tool": "get_weather", "input": "서울"},
            ),
            "서울은 맑고 15°C입니다.",
        ],
    )
    asked = await h.turn("서울 날씨랑 뉴스")
    question = next(e for e in asked if isinstance(e, Question))
    assert question.approval == {
        "kind": "approval",
        "tool": "get_weather",
        "args": {"city": "서울"},
        "why": "설정에서 확인을 요구합니다",
        "question": question.content,
    }
    assert not any(isinstance(e, ToolResultEvent) for e in asked)  # not even the search ran
    answered = await h.turn('{"approve": true, "args": {"city": "부산"}}')
    results = [e for e in answered if isinstance(e, ToolResultEvent)]
    assert sorted((r.tool, r.ok) for r in results) == [("get_weather", True), ("web_search", True)]
    assert next(r for r in results if r.tool == "get_weather").content.startswith("부산")
    assert done(answered).content == "서울은 맑고 15°C입니다."
