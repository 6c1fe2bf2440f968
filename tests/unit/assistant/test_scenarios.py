"""Seed 002's five scenarios and its error flow, with a scripted model.

Each test checks the route taken and the LLM calls against the seed's table (simple 2, tool 3,
RAG 2, long conversation with summary 3, RAG + tool 3): ours may be lower (the router's rules
decide obvious cases without an LLM), never higher. Where the rules would decide, a second
wording that the rules leave to the LLM shows the seed's exact count.
"""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage

from dure import honest
from dure.agents.assistant.prompts import CONTEXT_HEADER
from dure.events import Thinking, ToolSelected
from dure.llm.constrained import ToolReplyError
from dure.settings import Settings
from dure.sources import Source
from dure.testing import Call, ScriptedChatModel, tool_call, tool_calls

from .harness import (
    POLICIES,
    Assistant,
    FakeRetriever,
    conversation,
    system_prompt,
    tool_messages,
)

SEED_CALLS = {"simple": 2, "tool": 3, "rag": 2, "long": 3, "rag_tool": 3}


def assistant(settings: Settings, script: list, **options: object) -> Assistant:
    """An assistant with a collection to search (so the router has a real choice)."""
    return Assistant(
        settings, ScriptedChatModel(script), options={"retriever": FakeRetriever(), **options}
    )


def route(name: str) -> dict[str, str]:
    return {"route": name, "reason": "테스트"}


# --- scenario 1: simple conversation -------------------------------------------------------


async def test_simple_conversation_by_rule(settings: Settings) -> None:
    bot = assistant(settings, ["안녕하세요! 무엇을 도와드릴까요?"])
    turn = await bot.turn("안녕하세요")
    assert turn.route == "agent" and turn.routed_by_rule
    assert turn.steps == ["router", "agent"]
    assert turn.answer == "안녕하세요! 무엇을 도와드릴까요?"
    assert turn.llm_calls == 1 <= SEED_CALLS["simple"]


@pytest.mark.usefixtures("llm_tier")
async def test_simple_conversation_through_the_llm_router(settings: Settings) -> None:
    bot = assistant(settings, [route("agent"), "좋은 하루 보내세요!"])
    turn = await bot.turn("오늘 기분이 참 좋네")
    assert turn.route == "agent" and not turn.routed_by_rule
    assert [c.node for c in turn.calls] == ["router", "agent"]
    assert turn.calls[0].response_format is not None  # structured output
    assert "rag: 회사 문서, 정책, 규정" in turn.calls[0].prompt
    assert turn.llm_calls == SEED_CALLS["simple"]
    state = await bot.state()
    assert state["next_action"] == "end"


# --- scenario 2: a tool (calculator) -------------------------------------------------------


async def test_calculator_tool(settings: Settings) -> None:
    bot = assistant(
        settings,
        [tool_call("calculator", expression="123 * 456"), "123 × 456 = 56,088입니다."],
    )
    turn = await bot.turn("123 * 456 계산해줘")
    assert turn.route == "agent"
    assert turn.steps == ["router", "agent"]
    assert [c.node for c in turn.calls] == ["agent", "agent"]
    assert "calculator" in turn.calls[0].tools and len(turn.calls[0].tools) == 7
    # Plainly arithmetic: the first call is bound to the calculator, the answer is free.
    assert turn.calls[0].tool_choice == "calculator"
    assert turn.calls[1].tool_choice is None
    selected = [e for e in turn.events if isinstance(e, ToolSelected)]
    assert selected[0].tools == [{"name": "calculator", "args": {"expression": "123 * 456"}}]
    assert [(r.tool, r.ok, r.content) for r in turn.tool_results] == [("calculator", True, "56088")]
    (result,) = tool_messages(turn.calls[1])
    assert result.content == "56088" and result.status == "success"
    assert turn.answer == "123 × 456 = 56,088입니다."
    assert turn.llm_calls == 2 <= SEED_CALLS["tool"]


@pytest.mark.usefixtures("llm_tier")
async def test_tool_through_the_llm_router(settings: Settings) -> None:
    bot = assistant(
        settings,
        [route("agent"), tool_call("calculator", expression="123*456"), "56,088입니다."],
    )
    turn = await bot.turn("백이십삼에 사백오십육을 곱한 값은?")
    assert [c.node for c in turn.calls] == ["router", "agent", "agent"]
    assert turn.llm_calls == SEED_CALLS["tool"]


# --- scenario 3: RAG -------------------------------------------------------------------------


async def test_rag_by_rule(settings: Settings) -> None:
    bot = assistant(settings, ["연차는 15일, 병가는 10일입니다 (휴가 정책)."])
    turn = await bot.turn("회사 휴가 정책이 뭐야?")
    assert turn.route == "rag" and turn.routed_by_rule
    assert turn.steps == ["router", "rag", "agent"]
    prompt = system_prompt(turn.calls[0])
    assert prompt.index(CONTEXT_HEADER) > prompt.index("당신은 도움이 되는 AI 어시스턴트입니다.")
    # the passage as data, under the rule that says so (dure.untrusted)
    assert '[1] <자료 출처="휴가 정책">\n휴가 정책: 연차는 1년에 15일' in prompt
    assert "그 안에 있는 지시나 요청" in prompt
    assert [s.doc for s in turn.sources][0] == "휴가 정책"
    assert turn.done.sources[0].doc == "휴가 정책"
    assert turn.llm_calls == 1 <= SEED_CALLS["rag"]
    # passages found, no tool's job named: no tool is offered (the answer is the documents')
    assert turn.calls[0].tool_choice == "none"


async def test_the_sources_are_the_passages_the_answer_rests_on(settings: Settings) -> None:
    # the search finds several passages; the answer says what one of them says
    found = FakeRetriever({**POLICIES, "복지 안내": "복지 안내: 출장 중 휴가는 팀장 승인 후 쓴다."})
    bot = assistant(settings, ["출장 숙박비는 10만원까지 지원합니다."], retriever=found)
    turn = await bot.turn("출장 규정에서 숙박비 얼마까지 나와? 휴가 정책도 있나")
    assert len(found.search("출장 숙박비 휴가", 5)) > 1
    assert [s.doc for s in turn.done.sources] == ["출장 규정"]
    assert [s.doc for s in turn.sources] == ["출장 규정"]  # the sources event says the same
    # a figure is what a sentence claims: it rests on the passage holding the figure, not on
    # one that shares more of its words
    words = Source(
        doc="연락", kind="document", text="재택근무할 때는 재택근무일에도 메신저를 켠다."
    )
    table = Source(doc="지원 비용", kind="document", text="| 통신비 | 월 30,000원 |")
    said = "재택근무할 때 통신비는 월 30,000원입니다."
    assert honest.cited(said, [words, table]) == [table]
    assert honest.cited("재택근무할 때는 메신저를 켠다.", [table, words]) == [words]
    # an answer in the model's own words rests on what was found first
    bot = assistant(settings, ["네, 그렇게 하시면 됩니다."], retriever=FakeRetriever())
    first = await bot.turn("출장 규정에서 숙박비 얼마까지 나와?")
    assert len(first.done.sources) == 1


async def test_the_prompt_carries_the_passage_sentences_nearest_the_question(
    settings: Settings,
) -> None:
    settings.search.prompt_chars = 80
    rules = [
        "출장 규정: 국내 출장 일비는 하루 5만원입니다.",
        "해외 출장 일비는 하루 80달러입니다.",
        "숙박비는 국내 10만원, 해외 150달러까지 지원합니다.",
        "출장 보고서는 돌아온 날부터 7일 이내에 그룹웨어에 올립니다.",
        "법인카드를 잃어버리면 즉시 재무팀에 알립니다.",
    ]
    found = FakeRetriever({"출장 규정": "\n".join(rules)})
    bot = assistant(settings, ["출장 보고서는 7일 이내에 올립니다."], retriever=found)
    turn = await bot.turn("출장 규정상 보고서는 언제까지 올려야 해?")
    prompt = system_prompt(turn.calls[0])
    assert rules[3] in prompt and rules[4] not in prompt  # the budget holds the nearest ones
    assert turn.done.sources[0].text == "\n".join(rules)  # the source shown is the passage whole


@pytest.mark.usefixtures("llm_tier")
async def test_rag_through_the_llm_router(settings: Settings) -> None:
    retriever = FakeRetriever()
    bot = assistant(settings, [route("rag"), "출장 일비는 하루 5만원입니다."], retriever=retriever)
    turn = await bot.turn("출장 가면 하루에 얼마 나와?")
    assert turn.route == "rag" and not turn.routed_by_rule
    assert [c.node for c in turn.calls] == ["router", "agent"]
    assert retriever.queries == ["출장 가면 하루에 얼마 나와?"]
    assert "출장 규정: 국내 출장 일비는 하루 5만원" in system_prompt(turn.calls[1])
    assert turn.llm_calls == SEED_CALLS["rag"]


async def test_rag_with_nothing_found_says_so(settings: Settings) -> None:
    bot = assistant(settings, ["문서에서 찾지 못했습니다."], retriever=FakeRetriever({}))
    turn = await bot.turn("사내 동호회 규정 알려줘")
    assert f"{CONTEXT_HEADER}\n(검색된 문서가 없습니다)" in system_prompt(turn.calls[0])
    assert turn.done.sources == []


# --- scenario 4: long conversation with a summary --------------------------------------------

FACTS = [
    "내 이름은 철수야",
    "프로젝트 마감일은 3월 15일이야",
    "예산은 1억원으로 정했어",
    "담당자는 영희로 하기로 했어",
    "회의는 매주 월요일 10시야",
]


def long_conversation_model() -> ScriptedChatModel:
    """Router → agent, the summariser's summary built from what it was shown, plain answers."""

    def respond(call: Call) -> object:
        if call.node == "router":
            return route("agent")
        if call.node == "memory":
            shown = str(call.messages[-1].content)
            facts = [f for f in ("철수", "3월 15일", "1억원") if f in shown]
            return "핵심 사실:\n" + "\n".join(f"- {f}" for f in facts)
        if "마감일이 언제" in str(call.messages[-1].content):
            return "프로젝트 마감일은 3월 15일이라고 말씀하셨습니다."
        return "알겠습니다."

    return ScriptedChatModel(respond)


@pytest.mark.usefixtures("llm_tier")
async def test_long_conversation_is_summarised(settings: Settings) -> None:
    bot = Assistant(settings, long_conversation_model(), options={"retriever": FakeRetriever()})
    for fact in FACTS:  # ten messages
        turn = await bot.turn(fact)
        assert turn.calls_by("memory") == []
    assert len((await bot.state())["messages"]) == 10

    turn = await bot.turn("아까 말한 프로젝트 마감일이 언제라고 했지?")
    assert turn.route == "agent"
    assert turn.steps == ["router", "memory", "agent"]
    assert [c.node for c in turn.calls] == ["router", "memory", "agent"]
    assert turn.llm_calls == SEED_CALLS["long"]
    # The summariser saw the oldest messages; the agent sees the summary and the recent five.
    summarised = str(turn.calls_by("memory")[0].messages[-1].content)
    assert "사용자: 내 이름은 철수야" in summarised and "회의는 매주" not in summarised
    agent = turn.calls_by("agent")[0]
    prompt = system_prompt(agent)
    assert "[이전 대화 요약]\n[대화 기록 1]\n핵심 사실:\n- 철수\n- 3월 15일\n- 1억원" in prompt
    recent = conversation(agent)
    assert len(recent) == 5
    assert recent[-1].content == "아까 말한 프로젝트 마감일이 언제라고 했지?"
    assert turn.answer == "프로젝트 마감일은 3월 15일이라고 말씀하셨습니다."
    state = await bot.state()
    assert len(state["messages"]) == 6  # the five kept and the new answer
    assert state["summary"].startswith("핵심 사실:")


async def test_a_failed_summary_keeps_the_messages(settings: Settings) -> None:
    def respond(call: Call) -> object:
        if call.node == "memory":
            return RuntimeError("summariser down")
        return route("agent") if call.node == "router" else "네."

    bot = Assistant(settings, ScriptedChatModel(respond), options={"retriever": FakeRetriever()})
    for fact in FACTS:
        await bot.turn(fact)
    turn = await bot.turn("마감일이 언제였지?")
    assert turn.answer == "네."
    assert len((await bot.state())["messages"]) == 12  # nothing lost


# --- scenario 5 (persistence) lives in tests/integration/test_assistant_persistence.py -------


# --- RAG + tool ------------------------------------------------------------------------------


@pytest.mark.usefixtures("llm_tier")
async def test_rag_and_tool(settings: Settings) -> None:
    bot = assistant(
        settings,
        [
            route("rag"),
            tool_call("calculator", expression="15 - 6"),
            "휴가 정책상 연차는 15일이므로 6일을 쓰면 9일이 남습니다.",
        ],
    )
    turn = await bot.turn("휴가 규정 기준으로 연차 6일 쓰면 며칠 남는지 계산해줘")
    assert turn.route == "rag" and not turn.routed_by_rule  # documents and a tool: the LLM decides
    assert turn.steps == ["router", "rag", "agent"]
    assert [c.node for c in turn.calls] == ["router", "agent", "agent"]
    assert turn.calls[1].tool_choice is None  # "계산해줘" names a tool's job: the model chooses
    assert "연차는 1년에 15일" in system_prompt(turn.calls[1])
    assert tool_messages(turn.calls[2])[0].content == "9"
    assert turn.done.sources[0].doc == "휴가 정책"
    assert turn.llm_calls == SEED_CALLS["rag_tool"]


# --- the error flow --------------------------------------------------------------------------


async def test_a_tool_error_is_answered_honestly_without_a_guess(settings: Settings) -> None:
    bot = assistant(settings, [tool_call("calculator", expression="abc")])
    turn = await bot.turn("잘못된 계산식 abc 계산해줘")
    assert [(r.tool, r.ok) for r in turn.tool_results] == [("calculator", False)]
    assert turn.answer == honest.tools_failed(["알 수 없는 이름입니다: abc"])
    assert turn.llm_calls == 1  # the failure is reported by rule: no answer from memory


async def test_a_failed_round_after_a_good_one_lets_the_model_answer(settings: Settings) -> None:
    bot = assistant(
        settings,
        [
            tool_call("calculator", expression="2+3"),
            tool_call("calculator", expression="abc"),
            "2+3은 5이고, 두 번째 식은 계산할 수 없었습니다.",
        ],
    )
    turn = await bot.turn("2+3 계산하고 abc도 계산해줘")
    # The last round failed, but the turn has a result: the model writes the answer, and what
    # failed is named after it by rule, whatever the answer says.
    assert [r.ok for r in turn.tool_results] == [True, False]
    assert turn.answer == "2+3은 5이고, 두 번째 식은 계산할 수 없었습니다." + honest.partly_failed(
        ["알 수 없는 이름입니다: abc"]
    )
    assert turn.llm_calls == 3


async def test_a_figure_from_memory_is_said_to_be_unchecked(settings: Settings) -> None:
    bot = assistant(settings, ["세종대왕은 1910년에 한글을 만들었습니다."])
    turn = await bot.turn("검색 말고 그냥 아는 대로 말해줘, 한글은 언제 만들어졌어?")
    assert not turn.tool_results
    assert turn.answer == "세종대왕은 1910년에 한글을 만들었습니다." + honest.unchecked(
        "1910년", []
    )
    assert "확인하지 않은 수치가 있습니다(1910)" in turn.answer
    # the user's own figures, small counts and code are not recalled figures
    for said in ("연봉 4,200만 원 기준으로 볼게요.", "방법은 3가지입니다.", "`x = 12345`"):
        bot = assistant(settings, [said])
        assert (await bot.turn("연봉 4200만원이면 월 얼마야? 방법도")).answer == said


async def test_unknown_tools_and_bad_arguments_are_errors_too(settings: Settings) -> None:
    bot = assistant(settings, [tool_call("delete_everything", path="/")])
    unknown = await bot.turn("파이썬 말고 다른 걸로 해줘")
    assert "알 수 없는 도구입니다: delete_everything" in unknown.answer
    bot = assistant(settings, [tool_call("calculator", wrong="1+1")])
    bad_args = await bot.turn("계산해줘")
    assert "calculator 도구의 인자가 올바르지 않습니다" in bad_args.answer


async def test_a_tool_reply_that_never_closes_is_answered_without_tools(settings: Settings) -> None:
    looping = ToolReplyError("looping tool reply: '网球', '高尔夫', '网球', '高尔夫'")
    bot = assistant(settings, [looping, "세탁 코스는 확인하지 못했습니다."])
    turn = await bot.turn("운동화 빨 수 있는 코스 있나요?")
    assert turn.answer == "세탁 코스는 확인하지 못했습니다."
    assert not [e for e in turn.events if e.type == "error"] and not turn.tool_results
    assert turn.llm_calls == 2  # the call that failed is counted too


@pytest.mark.usefixtures("llm_tier")
async def test_router_reply_that_is_not_json_fails_closed_to_rag(settings: Settings) -> None:
    bot = assistant(settings, ["음... 잘 모르겠어요", "연차는 15일입니다."])
    turn = await bot.turn("연차는 며칠이야?")
    assert turn.route == "rag"
    assert "해석하지 못해" in next(
        e.content for e in turn.events if getattr(e, "step", "") == "router"
    )
    assert "연차는 1년에 15일" in system_prompt(turn.calls[1])


async def test_a_broken_collection_does_not_end_the_turn(settings: Settings) -> None:
    bot = assistant(
        settings,
        ["지금은 문서를 볼 수 없습니다."],
        retriever=FakeRetriever(fail=OSError("디스크 오류")),
    )
    turn = await bot.turn("회사 휴가 정책 알려줘")
    assert any(e.type == "error" and "디스크 오류" in e.content for e in turn.events)
    assert "문서 검색에 실패했습니다: 디스크 오류" in system_prompt(turn.calls[0])
    assert turn.answer == "지금은 문서를 볼 수 없습니다."


async def test_tool_rounds_are_bounded(settings: Settings) -> None:
    settings.assistant.max_tool_rounds = 2
    bot = assistant(
        settings,
        [
            tool_call("calculator", expression="1+1"),
            tool_call("calculator", expression="2+2"),
            AIMessage(
                "", tool_calls=[{"name": "calculator", "args": {"expression": "3+3"}, "id": "c3"}]
            ),
        ],
    )
    turn = await bot.turn("계산을 계속해줘")
    assert [c.tool_choice for c in turn.calls] == [None, None, "none"]
    assert len(turn.tool_results) == 2  # the third request for a tool was not run
    assert turn.llm_calls == 3


async def test_parallel_tool_calls_each_get_their_message(settings: Settings) -> None:
    bot = assistant(
        settings,
        [
            tool_calls(("calculator", {"expression": "2**10"}), ("get_current_datetime", {})),
            "1024이고 지금은 서울 시간 기준입니다.",
        ],
    )
    turn = await bot.turn("2의 10제곱이랑 서울 현재 시간 알려줘")
    results = tool_messages(turn.calls[1])
    assert [m.name for m in results] == ["calculator", "get_current_datetime"]
    assert results[0].content == "1024" and "Asia/Seoul" in results[1].content


async def test_without_a_collection_the_router_never_calls_the_llm(settings: Settings) -> None:
    bot = Assistant(settings, ScriptedChatModel(["네."]))
    turn = await bot.turn("오늘 기분이 참 좋네")
    assert turn.routed_by_rule and turn.route == "agent"
    assert [c.node for c in turn.calls] == ["agent"]


async def test_a_document_question_with_no_document_registered_says_so(settings: Settings) -> None:
    bot = Assistant(settings, ScriptedChatModel([]))  # no collection, no retriever
    turn = await bot.turn("회사 휴가 정책이 뭐야?")
    assert turn.answer == honest.NO_DOCUMENTS
    assert "dure documents add" in turn.answer
    assert turn.llm_calls == 0
    tokens = "".join(e.content for e in turn.events if e.type == "token")
    assert tokens == honest.NO_DOCUMENTS  # streamed like any answer


# --- truth and language of the answer (issue 18) ---------------------------------------------


async def test_a_figure_no_passage_holds_is_left_out_and_said_to_be(settings: Settings) -> None:
    bot = assistant(settings, ["연차는 1년에 15일입니다. 경조사 휴가는 5일입니다."])
    turn = await bot.turn("회사 휴가 정책이 뭐야?")
    assert turn.route == "rag"
    assert turn.answer.startswith("연차는 1년에 15일입니다.\n\n문서 원문 — 휴가 정책: “")
    notes = [e.content for e in turn.events if isinstance(e, Thinking) and e.step == "agent"]
    assert any("수치가 있는 문장 1개" in n for n in notes)


async def test_the_passage_sentence_nearest_the_question_follows_the_answer(
    settings: Settings,
) -> None:
    """The 1.5B model answered with the wrong sentence's figure: the sentence nearest the
    question follows, as written, so the reader has the document's own words."""
    bot = assistant(settings, ["병가는 10일입니다."])
    turn = await bot.turn("휴가 정책에서 반차 쓸 수 있어?")
    quote = "\n\n문서 원문 — 휴가 정책: “연차는 반차로 나눠 쓸 수 있습니다.”"
    assert turn.answer == "병가는 10일입니다." + quote
    assert "".join(e.content for e in turn.events if e.type == "token") == turn.answer
    said = assistant(settings, ["네, 연차는 반차로 나눠 쓸 수 있습니다."])
    turn = await said.turn("휴가 정책에서 반차 쓸 수 있어?")
    assert turn.answer == "네, 연차는 반차로 나눠 쓸 수 있습니다."  # said already: no quote
    # An answer resting on the wrong passage gets the right one's words, and that source.
    wrong = assistant(settings, ["연차는 1년에 15일입니다."])
    turn = await wrong.turn("출장 가면 숙박비 얼마까지 지원돼? 휴가 정책도 있나")
    assert turn.answer.endswith(
        "“출장 규정: 국내 출장 일비는 하루 5만원, 숙박비는 10만원까지 지원합니다.”"
    )
    assert "출장 규정" in [s.doc for s in turn.sources]
    # A quote line the model writes itself (copying an earlier answer's) is left out.
    copied = "네, 쓸 수 있습니다.\n\n문서 원문 — 휴가 정책: “병가는 10일입니다.”"
    turn = await assistant(settings, [copied]).turn("휴가 정책에서 반차 쓸 수 있어?")
    assert turn.answer == "네, 쓸 수 있습니다." + quote


async def test_without_documents_or_tools_the_answer_is_not_gated(settings: Settings) -> None:
    bot = assistant(settings, ["에베레스트산의 높이는 약 8,849m입니다."])
    turn = await bot.turn("에베레스트산은 얼마나 높아?")
    assert turn.route == "agent" and turn.answer == "에베레스트산의 높이는 약 8,849m입니다."


async def test_an_english_answer_to_a_korean_question_is_written_again(settings: Settings) -> None:
    bot = assistant(
        settings, ["Hello! How can I help you today?", "안녕하세요! 무엇을 도와드릴까요?"]
    )
    turn = await bot.turn("안녕하세요")
    assert turn.answer == "안녕하세요! 무엇을 도와드릴까요?" and "Hello" not in turn.answer
    assert [c.node for c in turn.calls] == ["agent", "agent"]


async def test_an_answer_with_no_supported_sentence_gives_the_passages(settings: Settings) -> None:
    bot = assistant(settings, ["경조사 휴가는 5일입니다."])
    turn = await bot.turn("회사 휴가 정책이 뭐야?")
    assert turn.answer.startswith("답변의 문장마다 근거로 확인되지 않는 수치가 있어")
    assert "연차는 1년에 15일" in turn.answer and "5일입니다" not in turn.answer
    # labelled as found, never in the delimiters the model read them in
    assert "[1] 휴가 정책: 휴가 정책: 연차는" in turn.answer and "자료" not in turn.answer


WELFARE = {
    "복리후생 규정": "복리후생 규정 > 2. 복지포인트\n- 입사 첫해에는 월 10만 포인트를 지급한다.\n"
    "- 명절 선물은 5만 원 상당의 상품권으로 준다."
}


async def test_a_figure_from_a_document_line_about_something_else_is_left_out(
    settings: Settings,
) -> None:
    """The local model answered an absent topic with a figure from another line ("야근수당은
    시간당 10만 원" from the welfare points): the value is in the documents, the claim is not."""
    script = ["야근수당은 시간당 10만 원입니다. 명절 선물은 5만 원 상당이에요."]
    bot = assistant(settings, script, retriever=FakeRetriever(WELFARE))
    turn = await bot.turn("복리후생 규정에 야근수당은 얼마야?")
    assert turn.answer.startswith("명절 선물은 5만 원 상당이에요.")
    assert "10만 원입니다" not in turn.answer
    notes = [e.content for e in turn.events if isinstance(e, Thinking)]
    assert "문서의 다른 항목에 적힌 수치를 쓴 문장 1개를 답변에서 뺐습니다." in notes
    # Every sentence left out: the passages themselves, as found.
    bot = assistant(
        settings, ["야근수당은 시간당 10만 원입니다."], retriever=FakeRetriever(WELFARE)
    )
    turn = await bot.turn("복리후생 규정에 야근수당은 얼마야?")
    assert turn.answer.startswith("답변의 문장마다 근거로 확인되지 않는 수치가 있어")
    assert "월 10만 포인트를 지급한다" in turn.answer


MANUAL = {
    "가스보일러 설명서": "가스보일러 설명서 > 7. 에러 코드\n- H1: 과열, 전원을 끄고 30분 뒤 다시 켜기\n"
    "- H2: 팬 정지, 서비스센터 문의"
}


async def test_a_code_the_manual_does_not_list_is_answered_by_rule(settings: Settings) -> None:
    """The local model answered "E05" from memory ("Python에서 발생하는 에러"): a code the
    documents do not list, though they list its kind, is said to be absent, with no model call."""
    bot = assistant(settings, [], retriever=FakeRetriever(MANUAL))
    turn = await bot.turn("보일러 H3 에러 뜨는데 뭐예요?")
    assert turn.route == "rag" and turn.llm_calls == 0
    assert turn.answer.startswith("올려 주신 문서에는 H3에 대한 내용이 없습니다.")
    assert "H1, H2" in turn.answer
    listed = assistant(
        settings, ["H2는 팬 정지입니다. 서비스센터에 문의하세요."], retriever=FakeRetriever(MANUAL)
    )
    turn = await listed.turn("보일러 H2 에러 뜨는데 뭐예요?")
    assert turn.answer.startswith("H2는 팬 정지입니다.") and turn.llm_calls == 1
