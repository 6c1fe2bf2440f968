"""Free-text answers: streamed, capped per call, cut at the first sign of a loop."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import HumanMessage

from dure.llm.answer import (
    IN_ENGLISH,
    KOREAN_AGAIN,
    LOOP_SPAN,
    NOT_KOREAN,
    answer_in_kind,
    is_korean,
    loop_start,
    stream_answer,
)
from dure.llm.constrained import ToolReplyError
from dure.testing import ScriptedChatModel, tool_call

SENTENCE = "이 조항은 계약 체결일로부터 14일 이내에 선급금을 지급하고, 검수 후 30일 이내에 잔금을 지급합니다. "


async def test_a_looping_answer_is_cut_after_its_last_full_sentence():
    looping = "제5조에 따르면 대금은 세 번에 나누어 지급합니다. " + SENTENCE * 6
    model = ScriptedChatModel([looping])
    answer = await stream_answer(model, [HumanMessage("제5조 내용이 뭐야?")], max_tokens=320)
    assert answer.endswith("지급합니다.")
    assert answer.count("선급금을 지급하고") == 1
    # The generation stopped at the loop: far fewer pieces were read than the reply holds.
    assert len(answer) < len(looping) / 3


async def test_a_plain_answer_is_kept_whole_and_the_cap_is_passed_on():
    reply = "제15조에 따르면 지체상금은 1일마다 계약금액의 1천분의 1.5입니다. 총액은 100분의 10을 넘지 못합니다."
    model = ScriptedChatModel([reply])
    assert await stream_answer(model, [HumanMessage("지체상금은?")], max_tokens=200) == reply
    assert model.calls[0].max_tokens == 200


def test_repeated_short_phrases_and_rules_are_not_loops():
    listing = "\n".join(f"- 표준계약서: {n}일 이내에 통지한다." for n in (7, 14, 30, 60, 90))
    assert loop_start(listing) is None
    assert loop_start("-" * (3 * LOOP_SPAN)) is None
    assert loop_start(SENTENCE * 2) is not None


async def _in_kind(question: str, replies: list[str]) -> tuple[str, list[str], list[str], Any]:
    model, shown, notes = ScriptedChatModel(replies), [], []
    reply = await answer_in_kind(
        question, model, [HumanMessage(question)], 100, lambda s: shown.append(s) or s, notes.append
    )
    return reply.text, shown, notes, model


async def test_an_answer_that_opens_in_english_is_written_again_in_korean():
    replies = ["I'm sorry, but I can't assist with that.", "죄송하지만 도와드릴 수 없습니다."]
    answer, shown, notes, model = await _in_kind("이거 해줘", replies)
    assert answer == "죄송하지만 도와드릴 수 없습니다." and "sorry" not in "".join(shown)
    assert notes == ["답변이 한국어가 아니어서 다시 작성합니다."]
    assert model.calls[1].messages[-1].content == KOREAN_AGAIN


async def test_twice_in_english_gives_the_fixed_korean_answer():
    replies = ["The inspection is done by letter.", "It is sent by letter."]
    answer, shown, notes, _ = await _in_kind("검수 결과는?", replies)
    assert answer == NOT_KOREAN and shown == [NOT_KOREAN] and len(notes) == 2


async def test_korean_with_latin_names_and_english_questions_pass():
    assert is_korean("LangGraph는 LangChain 기반의 상태 그래프 프레임워크입니다.")
    model = ScriptedChatModel(["LangGraph is a graph framework."])
    answer = await answer_in_kind(
        "What is LangGraph?", model, [HumanMessage("What is LangGraph?")], 100, lambda s: s, print
    )
    assert answer.text == "LangGraph is a graph framework."
    assert model.calls[0].messages[-1].content == IN_ENGLISH  # the prompts' Korean, overruled
    for question, told in (
        ("LangGraph가 뭐야?", False),
        ("123*456?", False),
        ("What is it?", True),
        ("What does 제5조 say?", True),  # a Korean label in an English question
        ("제5조 summary 해줘", False),
    ):
        model = ScriptedChatModel(["…"])
        await answer_in_kind(question, model, [HumanMessage(question)], 100, lambda s: s, print)
        assert (model.calls[0].messages[-1].content == IN_ENGLISH) is told


async def test_a_list_marker_is_not_a_sentence_of_its_own():
    reply = "제5조는 세 번 나눠 지급합니다.\n1. 선급금: 14일 이내\n2. 잔금: 30일 이내"
    seen: list[str] = []
    kept = await stream_answer(
        ScriptedChatModel([reply]), [HumanMessage("?")], 100, lambda s: seen.append(s) or s
    )
    assert kept == reply and "1." not in [s.strip() for s in seen]


async def test_a_reply_of_tool_calls_shows_nothing_and_keeps_the_calls():
    model = ScriptedChatModel([tool_call("weather", city="부산")])
    bound = model.bind_tools([{"name": "weather", "description": "날씨", "parameters": {}}])
    shown: list[str] = []
    reply = await answer_in_kind(
        "내일 부산 날씨는?", bound, [HumanMessage("내일 부산 날씨는?")], 100, shown.append, print
    )
    assert reply.text == "" and shown == []
    assert [(c["name"], c["args"]) for c in reply.tool_calls] == [("weather", {"city": "부산"})]


async def test_a_tool_reply_that_never_closes_is_answered_again_without_tools():
    looping = ToolReplyError("looping tool reply: '网球', '高尔夫', '网球', '高尔夫'")
    model = ScriptedChatModel([looping, "운동화 코스는 문서에서 찾지 못했습니다."])
    bound = model.bind_tools([{"name": "weather", "description": "날씨", "parameters": {}}])
    shown: list[str] = []
    notes: list[str] = []
    reply = await answer_in_kind(
        "운동화 코스 있어?",
        bound,
        [HumanMessage("운동화 코스 있어?")],
        100,
        _kept(shown),
        notes.append,
    )
    assert reply.text == "운동화 코스는 문서에서 찾지 못했습니다." and reply.tool_calls == []
    assert [c.tool_choice for c in model.calls] == [None, "none"]
    assert notes == ["도구 호출을 끝맺지 못해 도구 없이 답합니다."]


def _kept(shown: list[str]) -> Any:
    def show(sentence: str) -> str:
        shown.append(sentence)
        return sentence

    return show


async def test_a_short_latin_opening_waits_for_the_next_sentence():
    answer, shown, notes, _ = await _in_kind("확인해줘", ["OK. 제5조를 확인했습니다. "])
    assert answer == "OK. 제5조를 확인했습니다." and notes == []
    answer, shown, notes, _ = await _in_kind("확인해줘", ["OK."])
    assert answer == "OK." and shown == ["OK."]
