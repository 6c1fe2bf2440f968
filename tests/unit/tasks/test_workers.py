"""Workers: lunch over the fictional catalogue, and meeting-room booking (the second intent)."""

from __future__ import annotations

from datetime import datetime

import pytest

from dure.agent import AgentContext
from dure.agents.tasks.catalogue import areas, building, restaurants
from dure.agents.tasks.dishes import dish
from dure.agents.tasks.intents import LUNCH, MEETING_ROOM
from dure.agents.tasks.places import SAMPLE_NOTICE
from dure.agents.tasks.prompts import MODEL_RANKING_UNAVAILABLE
from dure.agents.tasks.schema import IntentSchema
from dure.agents.tasks.state import ConversationState
from dure.agents.tasks.workers import WorkerInput, WorkerResult, get_worker
from dure.llm import ModelSet
from dure.settings import Settings
from dure.testing import ScriptedChatModel

NOW = datetime.fromisoformat("2025-03-05T10:00:00+09:00")  # a Wednesday


@pytest.fixture
def ctx(settings: Settings) -> AgentContext:
    return AgentContext(settings=settings, models=ModelSet(settings, ScriptedChatModel([])))


def conv(schema: IntentSchema, **slots: object) -> ConversationState:
    state = ConversationState.for_intent(schema)
    state.slots.update(slots)
    return state


#: A lunch the tests vary one slot of.
LUNCH_SLOTS = {"location": "을지로", "datetime": "2025-03-05T12:30:00+09:00", "party_size": 2}


async def lunch(ctx: AgentContext, **slots: object) -> tuple[WorkerResult, WorkerResult]:
    state = conv(LUNCH, **{**LUNCH_SLOTS, **slots})
    menu = await get_worker("menu_recommendation_agent")(WorkerInput(state, NOW, ctx.settings))
    found = await get_worker("restaurant_search_agent")(
        WorkerInput(state, NOW, ctx.settings, results={"menu_recommendation_agent": menu})
    )
    return menu, found


def test_catalogue_is_fictional_korean_and_covers_every_area() -> None:
    assert len(restaurants()) >= 40
    assert len(areas()) >= 8
    assert all(sum(r.area == a for r in restaurants()) >= 5 for a in areas())


async def test_lunch_results_respect_every_constraint(ctx: AgentContext) -> None:
    when = "2025-03-05T12:30:00+09:00"
    menu, found = await lunch(ctx, location="을지로", datetime=when, party_size=8)
    assert found.ok and found.sources and found.data["provider"] == "sample"
    assert SAMPLE_NOTICE in found.notices
    catalogue = {r.name: r for r in restaurants()}
    for place in found.data["restaurants"]:
        r = catalogue[place["name"]]
        assert r.area == "을지로" and r.max_party >= 8 and r.is_open(datetime.fromisoformat(when))
        assert place["dish"] in menu.data["dishes"]  # found for a recommended dish


async def test_asked_cuisine_and_budget_are_used(ctx: AgentContext) -> None:
    menu, found = await lunch(
        ctx,
        location="여의도",
        datetime="2025-03-05T12:00:00+09:00",
        party_size=2,
        cuisine="일식",
        budget_per_person={"max": 25000},
    )
    assert {dish(n).category for n in menu.data["dishes"]} == {"일식"}  # type: ignore[union-attr]
    assert [r["category"] for r in found.data["restaurants"]] == ["일식"]
    assert found.data["relaxed"] == []


async def test_constraints_are_relaxed_and_said_when_nothing_fits(ctx: AgentContext) -> None:
    _, found = await lunch(
        ctx, location="성수", datetime="2025-03-05T12:00:00+09:00", party_size=2, cuisine="중식"
    )
    assert found.data["relaxed"] == ["메뉴"]
    assert "넓혀" in found.summary


async def test_closed_days_and_break_times_are_honoured(ctx: AgentContext) -> None:
    sunday_break = "2025-03-09T15:30:00+09:00"
    _, found = await lunch(ctx, location="을지로", datetime=sunday_break, party_size=2)
    names = {r["name"] for r in found.data.get("restaurants", [])}
    assert "두레국밥 을지로점" not in names  # closed on Sundays
    assert "을지면옥당" not in names  # break 15:00-16:30


async def test_excluded_dishes_are_neither_recommended_nor_listed(ctx: AgentContext) -> None:
    menu, found = await lunch(ctx, exclusions=["매운 음식", "고기"])
    assert menu.data["ranked_by"] == "rules" and MODEL_RANKING_UNAVAILABLE in menu.notices
    listed = [m["name"] for p in found.data["restaurants"] for m in p["menus"]]
    assert listed
    for name in [*menu.data["dishes"], *listed]:
        d = dish(name)
        assert d is not None and d.spicy == 0
        assert not {"돼지고기", "쇠고기", "닭고기"} & set(d.allergens)


async def test_a_requirement_the_catalogue_knows_is_checked(ctx: AgentContext) -> None:
    _, found = await lunch(ctx, requirements=["주차"])
    catalogue = {r.name: r for r in restaurants()}
    assert found.data["restaurants"]
    assert all("주차" in catalogue[p["name"]].tags for p in found.data["restaurants"])
    assert not any("확인할 수 없어요" in n for n in found.notices)


async def book(ctx: AgentContext, thread: str, **slots: object) -> WorkerResult:
    state = conv(MEETING_ROOM, **slots)
    inp = WorkerInput(state, NOW, ctx.settings, thread, owner=f"key-{thread}")
    return await get_worker("meeting_room_agent")(inp)


async def test_books_the_smallest_fitting_room_and_blocks_it(ctx: AgentContext) -> None:
    first = await book(ctx, "a", datetime="2025-03-06T14:00:00+09:00", party_size=5)
    assert first.ok and first.data["room"]["id"] == "3B"  # 6 seats, the smallest for 5
    again = await book(ctx, "a", datetime="2025-03-06T14:00:00+09:00", party_size=5)
    assert again.data["booking_id"] == first.data["booking_id"]  # same thread: idempotent
    other = await book(ctx, "b", datetime="2025-03-06T14:30:00+09:00", party_size=5)
    assert other.ok and other.data["room"]["id"] != "3B"


async def test_equipment_and_weekly_bookings_are_respected(ctx: AgentContext) -> None:
    # Monday 10:00: 3B (video, 6 seats) holds the weekly meeting.
    result = await book(
        ctx, "a", datetime="2025-03-10T10:00:00+09:00", party_size=3, equipment=["화상회의"]
    )
    assert result.data["room"]["id"] == "5B"
    assert "화상회의" in result.data["room"]["equipment"]


async def test_no_free_room_proposes_other_times(ctx: AgentContext) -> None:
    big = [r for r in building().rooms if r.capacity >= 20]
    assert [r.id for r in big] == ["9A"]
    # Friday 16:00 is the town hall in 9A.
    result = await book(ctx, "a", datetime="2025-03-07T16:00:00+09:00", party_size=20)
    assert not result.ok
    assert result.data["alternatives"] and result.data["alternatives"][0].startswith("18:00")


async def test_past_closing_time_is_refused(ctx: AgentContext) -> None:
    result = await book(
        ctx, "a", datetime="2025-03-06T20:30:00+09:00", party_size=2, duration_minutes=60
    )
    assert not result.ok and "21:00" in result.summary


async def test_the_dish_asked_for_is_what_is_ranked(ctx: AgentContext) -> None:
    model = ScriptedChatModel([{"dishes": ["비빔냉면"]}])
    state = conv(LUNCH, **{**LUNCH_SLOTS, "cuisine": "냉면"})
    inp = WorkerInput(state, NOW, ctx.settings, models=ModelSet(ctx.settings, model))
    menu = await get_worker("menu_recommendation_agent")(inp)
    assert menu.data["dishes"] == ["비빔냉면", "물냉면"] and menu.data["ranked_by"] == "llm"
    assert "- 물냉면 (" in model.calls[0].prompt and "돼지국밥" not in model.calls[0].prompt
    assert not menu.notices
