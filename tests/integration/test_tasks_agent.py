"""The task agent end to end: runner, graph, SQLite checkpointer, scripted models.

Covers the seed's four-stage walk-through, the AS-IS loop made impossible, corrections, invalid
values, restarts while waiting, the meeting-room intent with its confirmation, cancelling.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime, timedelta
from typing import Any

from dure.agent import AgentContext
from dure.agents import get_agent
from dure.agents.tasks import AGENT
from dure.agents.tasks.bookings import BookingStore
from dure.agents.tasks.catalogue import restaurants
from dure.agents.tasks.places import SAMPLE_NOTICE
from dure.agents.tasks.prompts import (
    CANCELLED,
    CONFIRM_AGAIN,
    DECLINED,
    GATE_MESSAGE,
    MODEL_RANKING_UNAVAILABLE,
)
from dure.events import Done, ErrorEvent, Event, Question, Slots, Thinking, Token, stream_turn
from dure.llm import ModelSet
from dure.persistence import open_checkpointer
from dure.settings import Settings
from dure.testing import Call, Reply, ScriptedChatModel

NOW = "2025-03-05T10:00:00+09:00"  # Wednesday morning
CATALOGUE = {r.name: r for r in restaurants()}


def ask(question: str, ack: str = "") -> dict[str, str]:
    """A scripted question draft."""
    return {"pattern": "ASK", "acknowledgement": ack, "question": question}


def ranking(call: Call) -> dict[str, list[str]]:
    """The menu ranking's reply: the first candidate it was offered."""
    offered = [line[2:].split(" (")[0] for line in call.prompt.splitlines() if line[:2] == "- "]
    return {"dishes": offered[:1]}


def lunch_answer(events: list[Event]) -> str:
    """The turn's answer, checked to be the lunch task's by rule: its conditions, the workers'
    results, the sample-data notice."""
    answer = done(events).content
    assert answer.startswith("점심 메뉴 추천 — ") and "\n추천 식당" in answer, answer
    assert answer.endswith(SAMPLE_NOTICE), answer
    return answer


def lunch_model(*replies: Reply) -> ScriptedChatModel:
    """The scripted replies in order, with the lunch worker's ranking call answered in between."""
    queue = list(replies)

    def respond(call: Call) -> Reply:
        return ranking(call) if call.node == "worker" else queue.pop(0)

    return ScriptedChatModel(respond)


@asynccontextmanager
async def agent(
    settings: Settings, model: ScriptedChatModel, **options: Any
) -> AsyncIterator[AgentContext]:
    async with open_checkpointer(settings.effective_database_url) as saver:
        yield AgentContext(settings, ModelSet(settings, model), saver, {"now": NOW, **options})


async def turn(ctx: AgentContext, message: str, thread: str = "t") -> list[Event]:
    return [e async for e in stream_turn(AGENT, ctx, thread, message)]


def done(events: list[Event]) -> Done:
    last = events[-1]
    assert isinstance(last, Done)
    return last


def questions(events: list[Event]) -> list[str]:
    return [e.content for e in events if isinstance(e, Question)]


def thinking(events: list[Event], step: str) -> list[str]:
    return [e.content for e in events if isinstance(e, Thinking) and e.step == step]


def slot_events(events: list[Event]) -> list[Slots]:
    return [e for e in events if isinstance(e, Slots)]


def nodes(calls: list[Call]) -> list[str | None]:
    return [c.node for c in calls]


async def state_of(ctx: AgentContext, thread: str = "t") -> dict[str, Any]:
    return (await AGENT.build(ctx).aget_state({"configurable": {"thread_id": thread}})).values


def test_registered_as_tasks() -> None:
    assert get_agent("tasks") is AGENT


async def test_seed_four_stage_walkthrough(settings: Settings) -> None:
    model = lunch_model(ask("시간은 언제로 할까요?", "을지로, 2명으로 확인했습니다."))
    async with agent(settings, model) as ctx:
        # 1단계: 일부 정보 → 게이트 통과 못함 → LLM이 질문 하나를 만든다
        first = await turn(ctx, "을지로에서 2명")
        assert slot_events(first)[-1].content == {"location": "을지로", "party_size": 2}
        assert slot_events(first)[-1].missing == ["datetime"]
        assert [(r["label"], r["value"]) for r in slot_events(first)[-1].rows] == [
            ("장소", "을지로"),
            ("시간", ""),
            ("인원", "2명"),
        ]
        assert questions(first) == ["을지로, 2명으로 확인했습니다. 시간은 언제로 할까요?"]
        assert done(first).waiting
        assert nodes(model.calls) == ["qa_agent"]
        state = await state_of(ctx)
        assert state["conversation"]["pending_slots"] == ["datetime"]
        assert state["steps"][0]["status"] == "waiting_user"

        # 2단계: 남은 정보 → 게이트가 규칙으로 즉시 COMPLETED (LLM 호출 없음)
        second = await turn(ctx, "12시 30분")
        assert slot_events(second)[0].content["datetime"] == "2025-03-05T12:30:00+09:00"
        assert slot_events(second)[0].missing == []
        assert not questions(second)
        # 3단계: 워커 실행, 4단계: 결과 전달 전 Q&A 게이트가 다시 불려도 즉시 COMPLETED
        order = [e.step for e in second if isinstance(e, Thinking) and e.step != "orchestrator"]
        assert order == [
            "qa_agent",
            "menu_recommendation_agent",
            "menu_recommendation_agent",
            "restaurant_search_agent",
            "restaurant_search_agent",
            "qa_agent",
        ]
        assert thinking(second, "qa_agent") == [GATE_MESSAGE, GATE_MESSAGE]
        # the orchestrator skips completed steps: nothing runs twice
        assert thinking(second, "orchestrator")[1:] == [
            "다음 단계: 점심 메뉴 추천 · 완료된 단계 1개 건너뜀",
            "다음 단계: 식당 검색 · 완료된 단계 2개 건너뜀",
            "다음 단계: 결과 전달 전 확인 · 완료된 단계 3개 건너뜀",
        ]
        assert nodes(model.calls) == ["qa_agent", "worker"]  # + menu ranking
        answer = lunch_answer(second)
        assert answer.startswith(
            "점심 메뉴 추천 — 을지로, 3월 5일(수) 오후 12시 30분, 2명\n\n추천 메뉴"
        )
        assert "".join(e.content for e in second if isinstance(e, Token)) == answer
        assert done(second).sources

        state = await state_of(ctx)
        assert [s["status"] for s in state["steps"]] == ["completed"] * 4
        for gate in (state["steps"][0], state["steps"][-1]):
            assert gate["message"] == GATE_MESSAGE
            assert gate["final_data"]["reason"] == "required_slots_filled"
        found = state["results"]["restaurant_search_agent"]["data"]["restaurants"]
        assert found and all(CATALOGUE[r["name"]].area == "을지로" for r in found)


async def test_everything_at_once_gets_no_question(settings: Settings) -> None:
    """The AS-IS loop cannot happen: the gate is a rule, so no LLM is asked whether to ask."""

    def respond(call: Call) -> Reply:
        assert call.node == "worker", f"unexpected LLM call in {call.node}"
        return ranking(call)

    model = ScriptedChatModel(respond)
    async with agent(settings, model) as ctx:
        for _ in range(2):  # the user repeats the same information: still no question
            events = await turn(ctx, "을지로, 2명, 12시 30분")
            assert not questions(events) and not done(events).waiting
            assert lunch_answer(events)
            assert done(events).usage.by_node.keys() == {"worker"}
    assert nodes(model.calls) == ["worker"] * 2


async def test_corrections_overwrite_while_waiting_and_after(settings: Settings) -> None:
    model = lunch_model(ask("시간은 언제로 할까요?"))
    async with agent(settings, model) as ctx:
        await turn(ctx, "을지로 3명")
        await turn(ctx, "아 3명 말고 4명, 12시")
        state = await state_of(ctx)
        assert state["conversation"]["slots"]["party_size"] == 4
        assert state["results"]["restaurant_search_agent"]["ok"]

        after = await turn(ctx, "5명으로 바꿔줘")  # continues the finished task, re-runs workers
        assert "판단: continue" in " ".join(thinking(after, "planner"))
        assert not questions(after)
        state = await state_of(ctx)
        assert state["conversation"]["slots"] == {
            "location": "을지로",
            "party_size": 5,
            "datetime": "2025-03-05T12:00:00+09:00",
        }
        assert all(
            CATALOGUE[r["name"]].max_party >= 5
            for r in state["results"]["restaurant_search_agent"]["data"]["restaurants"]
        )
    assert nodes(model.calls) == ["qa_agent", "worker", "worker"]


async def test_invalid_value_is_reasked_with_the_reason(settings: Settings) -> None:
    model = lunch_model(ask("점심은 몇 시에 드실 건가요?"))
    async with agent(settings, model) as ctx:
        first = await turn(ctx, "을지로 2명 저녁 7시")
        assert slot_events(first)[-1].missing == ["datetime"]
        assert questions(first)[0].startswith(
            "점심 추천은 오전 10시 30분부터 오후 3시 사이 시간만 가능해요."
        )
        second = await turn(ctx, "12시")
        assert lunch_answer(second)
    assert nodes(model.calls) == ["qa_agent", "worker"]


async def test_a_question_about_a_filled_slot_is_never_asked(settings: Settings) -> None:
    model = ScriptedChatModel([ask("인원은 몇 명이고 언제 드시나요?")])
    async with agent(settings, model) as ctx:
        events = await turn(ctx, "을지로에서 2명")
    assert questions(events) == ["을지로, 2명으로 확인했습니다. 시간은 언제로 할까요?"]


async def test_a_request_can_add_a_required_slot(settings: Settings) -> None:
    model = lunch_model(ask("인당 예산은 어느 정도로 생각하세요?"))
    async with agent(settings, model) as ctx:
        first = await turn(ctx, "예산 맞춰서 을지로 2명 12시 점심")
        assert slot_events(first)[-1].missing == ["budget_per_person"]
        second = await turn(ctx, "인당 2만원")
        assert lunch_answer(second)
        assert (await state_of(ctx))["conversation"]["slots"]["budget_per_person"] == {"max": 20000}


async def test_restart_while_waiting_with_a_new_checkpointer(settings: Settings) -> None:
    first_model = ScriptedChatModel([ask("시간은 언제로 할까요?")])
    async with agent(settings, first_model) as ctx:
        assert done(await turn(ctx, "을지로에서 2명")).waiting
    second_model = lunch_model()  # a new process would have a new model too
    async with agent(settings, second_model) as ctx:
        events = await turn(ctx, "12시 반")
    assert lunch_answer(events)
    assert nodes(second_model.calls) == ["worker"]


# The first turn of a conversation, run in a separate Python process (argv: draft, now, thread, message).
FIRST_TURN = """
import asyncio, json, sys
from dure.agent import AgentContext
from dure.agents.tasks import AGENT
from dure.events import stream_turn
from dure.llm import ModelSet
from dure.persistence import open_checkpointer
from dure.settings import get_settings
from dure.testing import ScriptedChatModel

async def main():
    s = get_settings()
    model = ScriptedChatModel([json.loads(sys.argv[1])])
    async with open_checkpointer(s.effective_database_url) as saver:
        ctx = AgentContext(s, ModelSet(s, model), saver, {"now": sys.argv[2]})
        async for e in stream_turn(AGENT, ctx, sys.argv[3], sys.argv[4]):
            print(json.dumps(e.to_json(), ensure_ascii=False))

asyncio.run(main())
"""


async def test_restart_while_waiting_in_a_new_process(settings: Settings) -> None:
    draft = json.dumps(ask("시간은 언제로 할까요?"), ensure_ascii=False)
    run = subprocess.run(  # the settings fixture put DURE_DATA_DIR in the environment
        [sys.executable, "-c", FIRST_TURN, draft, NOW, "p", "을지로에서 2명"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    last = json.loads(run.stdout.splitlines()[-1])
    assert last["type"] == "done" and last["waiting"]

    model = lunch_model()
    async with agent(settings, model) as ctx:
        events = await turn(ctx, "12시 반", thread="p")
    assert lunch_answer(events)
    assert nodes(model.calls) == ["worker"]


async def test_meeting_room_confirm_change_then_book(settings: Settings) -> None:
    model = ScriptedChatModel([])
    async with agent(settings, model) as ctx:
        first = await turn(ctx, "내일 오후 2시 회의실 6명")
        assert questions(first) == [
            "회의실 예약: 3월 6일(목) 오후 2시, 6명, 사용 시간 1시간(기본값). 이대로 예약할까요? (네/아니요)"
        ]
        second = await turn(ctx, "8명으로 바꿔줘")
        assert thinking(second, "qa_agent") == [GATE_MESSAGE]  # the gate checks the change
        assert "8명" in questions(second)[0]
        third = await turn(ctx, "네")
        state = await state_of(ctx)
    booking = state["results"]["meeting_room_agent"]
    assert booking["data"]["room"]["capacity"] >= 8 and booking["data"]["minutes"] == 60
    assert state["conversation"]["approvals"] == {"booking": True}
    assert done(third).content == f"회의실 예약 — 3월 6일(목) 오후 2시, 8명\n\n{booking['summary']}"
    assert "예약 완료" in booking["summary"]
    assert model.calls == []  # gate, confirmation and answer are rules


async def test_meeting_room_declined_books_nothing(settings: Settings) -> None:
    async with agent(settings, ScriptedChatModel([])) as ctx:
        await turn(ctx, "내일 오후 2시 회의실 6명")
        events = await turn(ctx, "아니요")
    assert done(events).content == DECLINED
    store = BookingStore(settings.effective_database_url)
    start = datetime.fromisoformat("2025-03-06T14:00:00+09:00")
    assert store.is_free("3B", start, start + timedelta(hours=1))


async def test_an_unclear_confirmation_is_asked_again(settings: Settings) -> None:
    async with agent(settings, ScriptedChatModel([])) as ctx:
        await turn(ctx, "내일 오후 2시 회의실 6명")
        again = await turn(ctx, "어떻게 하지")
        assert questions(again)[0].startswith(CONFIRM_AGAIN)
        assert "예약 완료" in done(await turn(ctx, "네")).content


async def test_cancel_while_waiting(settings: Settings) -> None:
    model = ScriptedChatModel([ask("시간은 언제로 할까요?")])
    async with agent(settings, model) as ctx:
        await turn(ctx, "을지로에서 2명")
        events = await turn(ctx, "그냥 취소할게")
        state = await state_of(ctx)
    assert done(events).content == CANCELLED
    assert {s["status"] for s in state["steps"]} == {"cancelled"}
    assert nodes(model.calls) == ["qa_agent"]


async def test_general_talk_passes_the_gate_at_once(settings: Settings) -> None:
    model = ScriptedChatModel(
        [{"intent": "general"}, "안녕하세요! 점심 추천이나 회의실 예약을 도와드려요."]
    )
    async with agent(settings, model) as ctx:
        events = await turn(ctx, "안녕하세요")
    assert thinking(events, "qa_agent") == [GATE_MESSAGE]
    assert nodes(model.calls) == ["planner", "final_answer"]
    assert "회의실" in done(events).content


async def test_llm_extraction_fills_only_what_rules_left_empty(settings: Settings) -> None:
    settings.tasks.llm_extraction = True
    model = lunch_model({"party_size": "넷"})
    async with agent(settings, model) as ctx:
        events = await turn(ctx, "을지로 12시, 인원은 우리 팀 전원(넷)")
        state = await state_of(ctx)
    assert state["conversation"]["slots"]["party_size"] == 4
    assert lunch_answer(events)
    fields_prompt = model.calls[0].messages[0].content
    assert "party_size" in fields_prompt and "location" not in fields_prompt
    assert nodes(model.calls) == ["planner", "worker"]


async def test_a_model_failure_still_asks_and_answers(settings: Settings) -> None:
    model = ScriptedChatModel([ConnectionError("down")] * 2)  # the question, the menu ranking
    async with agent(settings, model) as ctx:
        first = await turn(ctx, "을지로에서 2명")
        second = await turn(ctx, "12시 30분")
    assert questions(first) == ["을지로, 2명으로 확인했습니다. 시간은 언제로 할까요?"]
    assert [e.code for e in first if isinstance(e, ErrorEvent)] == ["llm_unavailable"]
    assert lunch_answer(second)
    assert MODEL_RANKING_UNAVAILABLE in done(second).content  # the rule order stood, and said so
    assert SAMPLE_NOTICE in done(second).content
    assert done(second).sources
