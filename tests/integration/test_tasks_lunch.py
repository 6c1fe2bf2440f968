"""The lunch flow end to end: the answer, written by rule from the workers' results, names no
dish the user excluded, on development examples (the blind set is written by someone who has
not seen the code)."""

from __future__ import annotations

import re

import pytest
from test_tasks_agent import agent, done, lunch_answer, lunch_model, nodes, state_of, turn

from dure.agents.tasks.dishes import dish, dishes
from dure.settings import Settings


async def test_the_answer_is_the_workers_results_by_rule(settings: Settings) -> None:
    model = lunch_model()  # the menu ranking is the only model call
    async with agent(settings, model) as ctx:
        events = await turn(ctx, "을지로 12시 2명 점심, 매운 거 빼고")
    answer = lunch_answer(events)
    assert answer.startswith("점심 메뉴 추천 — 을지로, 3월 5일(수) 오후 12시, 2명")
    assert "추천 메뉴 (제외: 매운 음식):" in answer and "마라탕" not in answer
    assert nodes(model.calls) == ["worker"]


@pytest.mark.parametrize(
    "request_text",
    [
        "을지로 12시 2명 점심 추천, 매운 거 빼고",
        "광화문에서 12시 반에 3명, 견과류 알레르기 있어요",
        "강남 1시 4명 점심인데 고기 말고",
        "여의도 12시 2명, 해산물 못 먹어요",
        "판교 12시 5명 점심, 새우 알레르기랑 매운 건 빼 주세요",
        "성수 12시 반 2명, 저 비건이에요",
        "홍대 1시 2명 점심, 밀가루 안 들어간 걸로",
        "종로 12시 3명, 우유 알레르기 있고 중식 말고",
        "강남 12시 반 4명, 짬뽕은 빼고 중식으로",
        "역삼 12시 2명, 분식 말고 든든한 거",
        "을지로 12시 넷이서, 한 명이 조개랑 꽃게 알러지",
        "홍대 1시 3명 해물은 다들 별로래요",
        "여의도 파크원 앞 12시 2명, 밀가루가 몸에 안 맞아요",
    ],
)
async def test_lunch_answers_respect_every_stated_exclusion(
    settings: Settings, request_text: str
) -> None:
    async with agent(settings, lunch_model()) as ctx:
        events = await turn(ctx, request_text)
        state = await state_of(ctx)
    exclusions = state["conversation"]["slots"]["exclusions"]
    results = done(events).content.split("\n\n", 1)[1]  # after the conditions the user gave
    answer = re.sub(r"\(제외: [^)]*\)", "", results)  # its echo names none
    names = sorted((d.name for d in dishes()), key=len, reverse=True)  # "참치김밥" before "김밥"
    named = re.findall("|".join(map(re.escape, names)), answer)
    assert named, answer
    assert not [n for n in named if any(dish(n).breaks(e) for e in exclusions)], answer  # type: ignore[union-attr]


async def test_a_count_in_an_exclusion_clause_is_not_the_party(settings: Settings) -> None:
    async with agent(settings, lunch_model()) as ctx:
        events = await turn(ctx, "판교 12시 다섯 명인데 그 중 한 명이 땅콩 알래르기")
        slots = (await state_of(ctx))["conversation"]["slots"]
    assert slots["party_size"] == 5 and slots["exclusions"] == ["땅콩"]
    assert "마라탕" not in done(events).content
