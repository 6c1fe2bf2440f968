"""The dish table, the rule filter and the one bounded ranking call."""

from __future__ import annotations

from datetime import datetime

import pytest

from dure.agents.tasks.catalogue import restaurants
from dure.agents.tasks.dishes import MAX_CANDIDATES, allowed, dish, dishes, rank, rule_order
from dure.agents.tasks.intents import LUNCH
from dure.korean.slots.parser import parse_slots
from dure.korean.time import SEOUL
from dure.testing import ScriptedChatModel

NOW = datetime(2025, 3, 5, 10, tzinfo=SEOUL)
MEAT = {"돼지고기", "쇠고기", "닭고기"}


def test_every_catalogue_dish_is_in_the_table() -> None:
    assert {m.name for r in restaurants() for m in r.menus} <= {d.name for d in dishes()}
    assert all(0 <= d.spicy <= 3 and d.price > 0 for d in dishes())


# Development examples (written with the code; the blind set is kept elsewhere).
@pytest.mark.parametrize(
    ("request_text", "broken"),
    [
        ("매운 거 빼고 점심 추천", lambda d: d.spicy > 0),
        ("견과류 알레르기가 있어요", lambda d: {"땅콩", "호두", "잣"} & set(d.allergens)),
        ("고기 말고 먹을 거", lambda d: MEAT & set(d.allergens) or d.category == "고기"),
        ("새우 알레르기 있고 매운 건 못 먹어요", lambda d: d.spicy or "새우" in d.allergens),
        (
            "채식이라 고기랑 생선 안 먹어요",
            lambda d: MEAT & set(d.allergens) or "생선" in d.allergens,
        ),
        ("밀가루 안 들어간 걸로", lambda d: "밀" in d.allergens),
        ("중식 말고", lambda d: d.category == "중식"),
        ("우유 알레르기", lambda d: "우유" in d.allergens),
    ],
)
def test_no_dish_left_breaks_a_stated_exclusion(request_text: str, broken: object) -> None:
    exclusions = parse_slots(request_text, LUNCH, NOW).slots["exclusions"]
    left = allowed(dishes(), exclusions)
    assert left, "something is still allowed"
    assert not [d.name for d in left if broken(d)]  # type: ignore[operator]


def test_rule_order_puts_the_asked_kind_first_and_mixes_kinds() -> None:
    ordered = rule_order(dishes(), asked=["냉면", "한식"], budget=None, nearby=None)
    assert [d.name for d in ordered[:2]] == ["물냉면", "비빔냉면"]
    plain = rule_order(dishes(), asked=[], budget=None, nearby=None)
    assert len({d.category for d in plain[:3]}) == 3
    cheap = rule_order(dishes(), asked=[], budget=10000, nearby=None)
    assert all(d.price <= 10000 for d in cheap[:10])


async def test_the_model_only_reorders_the_allowed_dishes() -> None:
    pool = rule_order(allowed(dishes(), ["매운 음식"]), asked=[], budget=None, nearby=None)
    model = ScriptedChatModel([{"dishes": [pool[2].name, pool[0].name]}])
    picked, ranked_by = await rank(pool, "장소 을지로, 2명", model)
    assert ranked_by == "llm"
    assert [d.name for d in picked] == [pool[2].name, pool[0].name, pool[1].name]
    call = model.calls[0]
    assert call.max_tokens and call.max_tokens < 400  # bounded by the schema
    schema = (call.response_format or {})["json_schema"]["schema"]
    offered = schema["properties"]["dishes"]["items"]["enum"]
    assert offered == [d.name for d in pool[:MAX_CANDIDATES]]
    assert all(dish(n) and dish(n).spicy == 0 for n in offered)  # type: ignore[union-attr]


async def test_an_excluded_dish_from_the_model_is_refused_and_the_rule_order_stands() -> None:
    pool = rule_order(allowed(dishes(), ["매운 음식"]), asked=[], budget=None, nearby=None)
    model = ScriptedChatModel([{"dishes": ["마라탕"]}])
    assert (await rank(pool, "", model)) == (pool[:3], "rules")
    failing = ScriptedChatModel([ConnectionError("down")])
    assert (await rank(pool, "", failing)) == (pool[:3], "rules")
    assert (await rank(pool[:1], "", failing)) == (pool[:1], "single")  # nothing to rank
    assert len(failing.calls) == 1


@pytest.mark.parametrize(
    ("exclusion", "broken"),
    [
        (
            "비건",
            lambda d: {*MEAT, "생선", "고등어", "새우", "조개류", "우유", "난류"} & {*d.allergens},
        ),
        ("채식", lambda d: {*MEAT, "생선", "고등어", "새우", "오징어"} & {*d.allergens}),
        ("할랄", lambda d: "돼지고기" in d.allergens),
        ("글루텐", lambda d: "밀" in d.allergens),
        ("생선", lambda d: {"생선", "고등어"} & {*d.allergens}),
        ("조개류", lambda d: "조개류" in d.allergens),
        ("돈가스", lambda d: "돈가스" in d.name),
    ],
)
def test_each_exclusion_word_rules_out_what_it_means(exclusion: str, broken: object) -> None:
    left = allowed(dishes(), [exclusion])
    assert left and not [d.name for d in left if broken(d)]  # type: ignore[operator]
    assert len(left) < len(dishes())


def test_a_diet_or_allergen_word_is_never_read_as_a_dish_name() -> None:
    # the vegan bowl is what a vegan may eat; an allergen no dish holds removes nothing
    assert "비건 볼" in {d.name for d in allowed(dishes(), ["비건"])}
    assert allowed(dishes(), ["게", "술"]) == dishes()
