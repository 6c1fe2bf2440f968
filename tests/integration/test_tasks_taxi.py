"""The third task (택시 호출): one schema and one worker, through the same gate, confirmation
and answer as the others."""

from __future__ import annotations

from test_tasks_agent import agent, ask, done, nodes, questions, slot_events, state_of, turn

from dure.agents.tasks.prompts import TAXI_DECLINED, TAXI_NOT_CONNECTED
from dure.settings import Settings
from dure.testing import ScriptedChatModel


async def test_a_taxi_is_asked_for_confirmed_and_prepared(settings: Settings) -> None:
    model = ScriptedChatModel([ask("몇 시에 타실 건가요?")])
    async with agent(settings, model) as ctx:
        first = await turn(ctx, "을지로입구역에서 6명 택시 불러줘")
        assert slot_events(first)[-1].content == {"pickup": "을지로입구역", "party_size": 6}
        assert slot_events(first)[-1].missing == ["datetime"]
        second = await turn(ctx, "오후 6시")
        assert questions(second) == [
            "택시 호출: 을지로입구역, 3월 5일(수) 오후 6시, 6명. 이대로 택시를 부를까요? (네/아니요)"
        ]
        third = await turn(ctx, "네")
        state = await state_of(ctx)
    result = state["results"]["taxi_agent"]
    assert result["data"]["cars"] == 2 and "(4명 + 2명)" in result["summary"]
    assert done(third).content == (
        "택시 호출 — 을지로입구역, 3월 5일(수) 오후 6시, 6명\n\n"
        f"{result['summary']}\n\n{TAXI_NOT_CONNECTED}"  # no dispatch service, and it says so
    )
    assert nodes(model.calls) == ["qa_agent"]


async def test_declining_calls_no_taxi(settings: Settings) -> None:
    async with agent(settings, ScriptedChatModel([])) as ctx:
        await turn(ctx, "내일 아침 8시 강남역에서 택시 2명")
        events = await turn(ctx, "아니요")
    assert done(events).content == TAXI_DECLINED
