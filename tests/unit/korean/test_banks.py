"""Tier 2: the shipped example banks, their vectors, and decisions made without any LLM call.

The messages here are this file's own (never from a blind set). The model is a scripted one
with no replies: reaching the LLM tier would fail the test.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

import numpy as np
import pytest
from langchain_core.messages import AIMessage, HumanMessage

from dure.embeddings import shared_e5
from dure.korean.bank import Bank, Logistic, bank_rows
from dure.korean.followup import FOLLOWUP_TIER2, decide_followup
from dure.korean.intent import EARLIER_TOOL_TIER2, INTENT_TIER2, TOOL_TIER2, decide_intent
from dure.korean.route import ROUTE_TIER2, decide_route
from dure.korean.scope import SCOPE_TIER2, decide_scope
from dure.llm import ModelSet
from dure.settings import Settings
from dure.testing import ScriptedChatModel
from dure.usage import UsageTracker

TIER2 = (SCOPE_TIER2, ROUTE_TIER2, FOLLOWUP_TIER2, INTENT_TIER2, TOOL_TIER2, EARLIER_TOOL_TIER2)
SHIPPED = Path(str(files("dure").joinpath("data", "understanding")))


@pytest.mark.parametrize("spec", TIER2, ids=lambda t: f"{t.bank}:{t.label}")
def test_every_bank_ships_its_current_vectors_and_fit(spec, tmp_path: Path) -> None:
    rows = bank_rows(spec.bank)
    labels = [str(r[spec.label]) for r in rows]
    assert set(labels) >= {"True", "False"} or len(rows) >= 150
    bank = Bank(spec.bank, [str(r[spec.text]) for r in rows], labels, tmp_path)
    shipped = SHIPPED / bank.file_name
    assert shipped.is_file(), "a bank changed: run scripts/understanding-banks.py"
    vectors = np.load(shipped).astype(np.float32)
    assert vectors.shape == (len(rows), 384)
    fresh = shared_e5().embed_queries(bank.texts[:3])
    assert np.all(np.sum(vectors[:3] * fresh, axis=1) > 0.99)
    fit = SHIPPED / bank.model_file(spec.l2, spec.morphemes, spec.dense)
    assert fit.is_file(), "a bank or its Tier2 changed: run scripts/understanding-banks.py"
    model = spec.classifier(bank)  # read, not fitted: nothing lands in tmp_path
    assert sorted(model.classes) == sorted(set(labels)) and not list(tmp_path.glob("*.npz"))


def test_an_edited_bank_is_fitted_once_then_read(tmp_path: Path, monkeypatch) -> None:
    texts = ["내일 날씨 어때", "고마워", "환율 알려줘", "ㅋㅋ 웃기다"]
    first = Bank("mine", texts, ["True", "False", "True", "False"], tmp_path)
    fitted = first.logistic(1e-3, 0.3)
    assert len(list(tmp_path.glob("mine-fit-*.npz"))) == 1

    def refit(*args, **kwargs):
        raise AssertionError("fitted again")

    monkeypatch.setattr(Logistic, "fit", refit)
    again = Bank("mine", texts, ["True", "False", "True", "False"], tmp_path).logistic(1e-3, 0.3)
    assert again.classes == fitted.classes and np.array_equal(again.weights, fitted.weights)
    relabelled = Bank("mine", texts, ["False", "False", "True", "True"], tmp_path)
    with pytest.raises(AssertionError, match="fitted again"):  # other labels: another fit
        relabelled.logistic(1e-3, 0.3)


@pytest.fixture
def no_llm(settings: Settings) -> ModelSet:
    return ModelSet(settings, ScriptedChatModel([]))


async def test_scope_decided_by_the_bank(no_llm: ModelSet) -> None:
    contract = await decide_scope("집주인이 나가라고 하면 바로 나가야 돼?", no_llm)
    other = await decide_scope("주말에 볼만한 넷플릭스 추천 좀", no_llm)
    assert (contract.kind, contract.decided_by) == ("contract", "embedding")
    assert (other.kind, other.decided_by) == ("out_of_scope", "embedding")


async def test_route_decided_by_the_bank(no_llm: ModelSet) -> None:
    docs = await decide_route("출장 숙박비 한도가 얼마였지", [], no_llm, has_documents=True)
    world = await decide_route("광합성이 뭔지 설명해줘", [], no_llm, has_documents=True)
    assert (docs.route, docs.decided_by) == ("rag", "embedding")
    assert (world.route, world.decided_by) == ("agent", "embedding")


async def test_an_unsure_agent_vote_goes_to_documents_that_hold_its_subject(
    no_llm: ModelSet,
) -> None:
    """ "바퀴에 머리카락 끼면 어떻게 빼?" is the agent's by the bank, but not surely: beside a
    manual that speaks of 바퀴 it is asked of the manual. A common word held ("어떻게" is
    no noun; "회사" is common) or a sure vote leaves the route as voted."""
    manual = ["바퀴에 머리카락이 감기면 바퀴를 분리한 뒤 가위로 잘라 제거하세요."]
    asked: list[str] = []

    async def search(text: str) -> list[str]:
        asked.append(text)
        return manual

    async def unrelated(text: str) -> list[str]:
        return ["먼지통은 매일 비우고 물로 씻어 말려 주세요."]

    question = "바퀴에 머리카락 끼면 어떻게 빼?"
    plain = await decide_route(question, [], no_llm, has_documents=True)
    held = await decide_route(question, [], no_llm, has_documents=True, search=search)
    other = await decide_route(question, [], no_llm, has_documents=True, search=unrelated)
    assert (plain.route, held.route, other.route) == ("agent", "rag", "agent")
    assert held.decided_by == "embedding" and "바퀴" in held.reason
    sure = await decide_route("점심 메뉴 추천해줘", [], no_llm, has_documents=True, search=search)
    assert sure.route == "agent" and asked == [question]  # a sure vote searches nothing


async def test_a_code_the_documents_list_or_whose_kind_they_list_is_asked_of_them(
    no_llm: ModelSet,
) -> None:
    """ "H3 떴는데 뭐야?" beside a manual listing H1 and H2: a document question by rule (the
    answer then says H3 is not listed); without documents, or beside other text, as voted."""
    manual = [
        "에러 코드\n- H1: 과열, 전원을 끄고 30분 뒤 다시 켜기\n- H2: 팬 정지, 서비스센터 문의"
    ]

    async def search(text: str) -> list[str]:
        return manual

    async def unrelated(text: str) -> list[str]:
        return ["먼지통은 매일 비우고 물로 씻어 말려 주세요."]

    for question, named in (("H2 떴는데 뭐야?", "H2"), ("h3 에러 뜨면 어떻게 해", "H1, H2")):
        d = await decide_route(question, [], no_llm, has_documents=True, search=search)
        assert (d.route, d.decided_by, d.reason) == (
            "rag",
            "rule",
            f"등록된 문서에 나오는 코드({named})",
        )
    other = await decide_route("H3 떴는데 뭐야?", [], no_llm, has_documents=True, search=unrelated)
    assert other.decided_by != "rule"


async def test_a_bare_condition_goes_where_the_previous_question_went(no_llm: ModelSet) -> None:
    """Alone, "친척 집에서 자면?" is the agent's (the bank); after a question on the travel rules
    it is asked of the same documents. A redo of the answer keeps its own route."""
    alone = await decide_route("친척 집에서 자면?", [], no_llm, has_documents=True)
    earlier = [HumanMessage("출장 숙박비 한도가 얼마였지"), AIMessage("팀원은 1박 8만 원입니다.")]
    after = await decide_route("친척 집에서 자면?", earlier, no_llm, has_documents=True)
    assert alone.route == "agent"
    assert (after.route, after.decided_by) == ("rag", "embedding")
    weather = [HumanMessage("오늘 서울 날씨 어때?"), AIMessage("맑고 12도입니다.")]
    redo = await decide_route("한 줄로 요약해줘", earlier, no_llm, has_documents=True)
    assert (await decide_route("부산은?", weather, no_llm, has_documents=True)).route == "agent"
    assert redo.reason != after.reason


async def test_followup_decided_by_the_bank(no_llm: ModelSet) -> None:
    previous = [
        {"role": "user", "content": "임대차 계약 해지 조건 알려줘"},
        {"role": "assistant", "content": "제9조에 따라 2개월 전에 통보하면 해지할 수 있습니다."},
    ]
    d = await decide_followup("계약서에 반려동물 관련 내용도 있어?", previous, no_llm)
    assert d.decided_by == "embedding" and not d.refers_to_previous


async def test_intent_and_needs_tool_decided_by_the_bank(no_llm: ModelSet) -> None:
    now = "2026-11-24 (화) 10:00 KST"
    fare = await decide_intent("서울에서 부산까지 KTX 요금 얼마야", [], no_llm, now)
    poem = await decide_intent("시 한 편 써줘 가을 느낌으로", [], no_llm, now)
    assert (fare.intent, fare.needs_tool, fare.decided_by) == ("new_question", True, "embedding")
    assert (poem.intent, poem.needs_tool) == ("new_question", False)
    assert fare.rewritten_query == "서울에서 부산까지 KTX 요금 얼마야"  # nothing to rewrite


async def test_a_long_message_is_read_at_both_ends(no_llm: ModelSet) -> None:
    # Past the rules' length limit the bank decides; it embeds a long message's head and tail.
    story = "지난주에 친구들이랑 여행 계획을 세우다가 숙소는 바닷가 근처 펜션으로 정했어. " * 6
    now = "2026-11-24 (화) 10:00 KST"
    asked = await decide_intent(story + "그래서 말인데 내일 제주 날씨 어때?", [], no_llm, now)
    told = await decide_intent(story, [], no_llm, now)
    assert (asked.needs_tool, asked.decided_by) == (True, "embedding")
    assert (told.intent, told.needs_tool) == ("new_question", False)


async def test_a_follow_up_without_history_is_a_new_question(no_llm: ModelSet) -> None:
    d = await decide_intent("그럼 다른 데는?", [], no_llm, "2026-11-24 (화) 10:00 KST")
    assert d.intent == "new_question"


async def test_a_follow_up_takes_one_bounded_rewrite_call(settings: Settings) -> None:
    model = ScriptedChatModel([{"rewritten_query": "부산 해운대 근처 돼지국밥 맛집 다른 곳 추천"}])
    history = [
        {"role": "user", "content": "부산 해운대 근처 돼지국밥 맛집 알려줘"},
        {"role": "assistant", "content": "A식당과 B식당이 유명합니다."},
    ]
    d = await decide_intent("다른 데는 없어?", history, ModelSet(settings, model), "-")
    assert d.intent == "follow_up" and d.decided_by == "embedding"
    assert d.rewritten_query == "부산 해운대 근처 돼지국밥 맛집 다른 곳 추천"
    assert len(model.calls) == 1 and model.calls[0].max_tokens == 160


async def test_a_follow_up_needs_the_tools_its_question_needed(settings: Settings) -> None:
    model = ScriptedChatModel([{"rewritten_query": "내일 광주 날씨"}])
    history = [
        {"role": "user", "content": "내일 대구 날씨 어때?"},
        {"role": "assistant", "content": "내일 대구는 맑고 최고 18도입니다."},
    ]
    d = await decide_intent("광주는?", history, ModelSet(settings, model), "-")
    assert (d.intent, d.needs_tool) == ("follow_up", True)


async def test_a_correction_of_the_previous_answer_is_a_clarification(settings: Settings) -> None:
    model = ScriptedChatModel([{"rewritten_query": "용인 맛집 추천"}])
    history = [
        {"role": "user", "content": "수원 맛집 알려줘"},
        {"role": "assistant", "content": "수원 통닭거리가 유명합니다."},
    ]
    d = await decide_intent("아니 수원 말고 용인", history, ModelSet(settings, model), "-")
    assert (d.intent, d.rewritten_query) == ("clarification", "용인 맛집 추천")


async def test_a_new_question_announced_after_a_turn_is_new_whatever_the_bank_says(
    no_llm: ModelSet,
) -> None:
    history = [
        {"role": "user", "content": "1234 곱하기 56은?"},
        {"role": "assistant", "content": "1234 × 56 = 69,104입니다."},
    ]
    message = "이거 말고 딴 거 물어볼게, 환율 1달러 얼마야?"
    vote = await INTENT_TIER2.adecide(no_llm.settings, message)
    assert vote is not None and vote.label != "new_question"  # what the rule corrects
    d = await decide_intent(message, history, no_llm, "-")
    assert (d.intent, d.needs_tool, d.rewritten_query) == ("new_question", True, message)


async def test_arithmetic_needs_the_calculator_by_rule(no_llm: ModelSet) -> None:
    d = await decide_intent("48 곱하기 7은 얼마야", [], no_llm, "-")
    assert (d.intent, d.needs_tool) == ("new_question", True)


async def test_a_sum_done_in_the_head_needs_no_tool(settings: Settings, no_llm: ModelSet) -> None:
    for message in ("7 더하기 8은?", "100의 절반이 얼마지", "ㅎㅎ 12 곱하기 5 얼마?"):
        d = await decide_intent(message, [], no_llm, "-")
        assert (d.intent, d.needs_tool) == ("new_question", False), message
    model = ScriptedChatModel([{"rewritten_query": "5 곱하기 6에 10 더하면"}])
    history = [
        {"role": "user", "content": "5 곱하기 6"},
        {"role": "assistant", "content": "30입니다."},
    ]
    d = await decide_intent("거기에 10 더하면", history, ModelSet(settings, model), "-")
    assert (d.intent, d.needs_tool) == ("follow_up", False)
    weather = [
        {"role": "user", "content": "내일 서울 날씨 어때?"},
        {"role": "assistant", "content": "내일 서울은 맑고 최고 12도입니다."},
    ]
    d = await decide_intent("9 더하기 6은?", weather, no_llm, "-")  # asks all it needs
    assert (d.intent, d.needs_tool) == ("new_question", False)


async def test_a_correction_needs_the_tools_its_request_needed(settings: Settings) -> None:
    model = ScriptedChatModel([{"rewritten_query": "다음 주 대구 날씨"}])
    history = [
        {"role": "user", "content": "내일 대구 날씨 어때?"},
        {"role": "assistant", "content": "내일 대구는 맑고 최고 18도입니다."},
    ]
    message = "아니 제 말은 다음 주요"
    vote = await TOOL_TIER2.adecide(settings, message)
    assert vote is not None and vote.label == "False"  # what the earlier request corrects
    d = await decide_intent(message, history, ModelSet(settings, model), "-")
    assert (d.intent, d.needs_tool) == ("clarification", True)


async def test_the_turn_usage_notes_how_each_decision_was_made(no_llm: ModelSet) -> None:
    tracker = UsageTracker()
    token = tracker.activate()
    try:
        await decide_scope("안녕하세요", no_llm)
        await decide_route("출장 숙박비 한도가 얼마였지", [], no_llm, has_documents=True)
    finally:
        UsageTracker.deactivate(token)
    assert tracker.usage.decided_by == {"scope": "rule", "route": "embedding"}
