"""The router's rules: they decide only what they cannot get wrong; the rest goes to the LLM."""

from __future__ import annotations

import pytest

from dure.korean.route import asks_documents, rule_route, tool_hint


@pytest.mark.parametrize(
    ("question", "route"),
    [
        ("안녕하세요", "agent"),
        ("안녕하세요!", "agent"),
        ("고마워요~", "agent"),
        ("ㅋㅋㅋ", "agent"),
        ("123 * 456 계산해줘", "agent"),
        ("(3+4)^2는?", "agent"),
        ("서울 날씨 알려줘", "agent"),
        ("지금 몇 시야?", "agent"),
        ("오늘이 무슨 요일이지", "agent"),
        ("파이썬으로 피보나치 수열 출력해줘", "agent"),
        ("위키에서 세종대왕 찾아봐", "agent"),
        ("회사 휴가 정책이 뭐야?", "rag"),
        ("출장비 규정 알려줘", "rag"),
        ("사내 보안 지침에서 외부 메일 얘기", "rag"),
        ("취업 규칙상 지각 기준은?", "rag"),
        # manuals the user added; the law, rain, translation and code tasks are not theirs
        ("냉장고 설명서에 냉동실 온도 몇 도로 하라고 돼 있어?", "rag"),
        ("신입 핸드북 보면 점심시간 따로 정해져 있어?", "rag"),
        ("배포 가이드에 롤백 절차 있어?", "rag"),
        ("퇴직금은 법적으로 언제까지 줘야 돼?", "agent"),  # the law, not the handbook
        ("연차 미사용 수당 근로기준법상 계산법", "agent"),
        ("이따 퇴근할 때 비 와?", "agent"),
        ("휴가 신청서 양식 문장 영어로 바꿔줘", "agent"),
        ("자바스크립트로 배열 섞는 함수 짜줘", "agent"),
        # English works too
        ("What does the employee handbook say about overtime?", "rag"),
        ("what's our travel expense policy?", "rag"),
        ("What's the weather in Busan?", "agent"),
    ],
)
def test_rules_decide_the_obvious(question: str, route: str) -> None:
    decision = rule_route(question, has_collection=True)
    assert decision is not None and decision.route == route


@pytest.mark.parametrize(
    "question",
    [
        "드레스코드 자율이야?",  # 코드 here is a dress code, not a program
        "야근하면 저녁 식대 몇 시부터 나와?",  # a clock word in a document question
        "원격근무 가능한 요일 정해져 있어?",
        "보안 프로그램 설치 안 하면 안 돼?",
        # "찾아줘" asked of a paper the user has: its words, not a web search.
        "통신사 약관에서 해지 위약금 기준 찾아줘",
        "건조기 설명서에 필터 세척 주기 나와 있는 거 찾아줘",
        "수학 교재에서 등비수열 공식 찾아줘",
    ],
)
def test_loose_tool_words_do_not_decide_agent(question: str) -> None:
    decision = rule_route(question, has_collection=True)
    assert decision is None or decision.route == "rag"


@pytest.mark.parametrize(
    "question",
    [
        "회사 규정대로 연차 계산해줘",  # documents and a tool: mixed
        "연차는 며칠이야?",  # sounds like the documents, but not surely
        "회사 근처 날씨 어때?",  # a tool word next to a document word
        "내 이름은 철수야",
        "아까 말한 프로젝트 마감일이 언제라고 했지?",
        "응, 그건 어떻게 신청해?",  # a follow-up: depends on the conversation
        "안녕하세요, 휴가 신청은 어떻게 해요?",  # greeting + a real question
        "네이버 주가",
    ],
)
def test_everything_else_goes_to_the_llm(question: str) -> None:
    assert rule_route(question, has_collection=True) is None


@pytest.mark.parametrize(
    "question",
    ["사내 규정 작성하는 요령 알려줘", "출장 매뉴얼 템플릿 만들어줘", "보안 정책 목차 추천"],
)
def test_how_to_write_a_document_is_no_question_about_one(question: str) -> None:
    assert not asks_documents(question)
    assert rule_route(question, has_collection=True) is None  # the bank decides


def test_without_a_collection_only_a_plain_document_question_is_rag() -> None:
    # rag without documents: the assistant then says plainly that none is registered.
    for question in (
        "회사 휴가 정책이 뭐야?",
        "내가 올린 문서에 뭐라고 돼 있어?",
        "지난주 회의록에서 정한 마감일이 언제였지?",  # what a named document says
        "3분기 보고서에 나온 매출 얼마야",
        "공지사항 보면 주차 등록 어떻게 해?",
        "예전에 업로드한 기획서 기준으로 일정 정리해줘",  # the user's own paper
        "내가 올린 보고서에 마감 날짜 언제로 돼 있어?",  # a date word, asked of the paper
    ):
        decision = rule_route(question, has_collection=False)
        assert decision is not None and decision.route == "rag"
    for question in (
        "보고서 잘 쓰는 법 알려줘",
        "회의록 양식 만들어줘",
        "엑셀 파일에서 중복 지우는 법",
    ):
        decision = rule_route(question, has_collection=False)
        assert decision is not None and decision.route == "agent"
    for question in ("LangGraph가 뭐야?", "회사 근처 날씨 어때?"):
        decision = rule_route(question, has_collection=False)
        assert decision is not None and decision.route == "agent"


@pytest.mark.parametrize(
    ("question", "tool"),
    [
        ("123 * 456 계산해줘", "calculator"),
        ("(15+27)^2는 얼마야", "calculator"),
        ("3.5 곱하기 12는?", "calculator"),
        ("2,340의 15%는?", "calculator"),  # a share of an amount
        ("100만원의 3.5프로는 얼마야", "calculator"),
        ("What is 15% of 2,340?", "calculator"),
        ("How much is 12 times 34?", "calculator"),
        ("calculate 1234*5678", "calculator"),
        ("계약금의 10%는 얼마야?", None),  # no amount: the user's papers hold it
        ("2026년의 5%는 지났어", None),
        ("지금 몇 시야?", "get_current_datetime"),
        ("오늘이 무슨 요일이지", "get_current_datetime"),
        ("다음 주 목요일이 며칠이지?", "get_current_datetime"),  # a day counted from today
        ("글피 무슨 요일이야", "get_current_datetime"),
        ("100일 뒤가 며칠이야?", "get_current_datetime"),
        ("오늘부터 1년 뒤면 며칠이야?", "get_current_datetime"),
        ("택배 3일 뒤 도착하면 며칠이야", None),  # the user's own count, not surely the calendar's
        ("다음 달 카드값 며칠에 나가?", None),  # the user's own date, not the calendar's
        ("내일 며칠까지 내야 돼?", None),
        ("3/15에 회의 있어", None),  # a date, not a division
        ("2025-03-15 일정 알려줘", None),
        ("회의 몇 시에 하자고 했지?", None),  # memory, not the clock
        ("파이썬으로 3*4 계산하는 코드", None),  # code: the model picks python_repl or not
        ("회사 규정대로 15-6 계산", None),  # documents first
        ("지금 몇 시고 2+2는 얼마야", None),  # two tools: the model chooses
        ("안녕하세요", None),
        ("지금 서울 날씨 어때?", "get_weather"),
        ("내일 부산 기온 알려줘", "get_weather"),
        ("LangGraph가 뭔지 검색해서 요약해줘", "web_search"),
        ("LangGraph가 뭔지 검색하고 요약해줘", "web_search"),
        ("내일 광주 비 와?", "get_weather"),
        ("주말에 눈 올까", "get_weather"),
        ("오늘 우산 챙겨야 돼?", "get_weather"),
        ("지금 대구 몇 도야", "get_weather"),
        ("비 오는 날 듣기 좋은 노래 추천해줘", None),
        ("새로 나온 아이폰 가격 알아봐줘", "web_search"),
        ("러스트 2024 에디션 변경점 인터넷에서 찾아줘", "web_search"),
        ("날씨 검색해줘", None),  # two tools: the model chooses
        ("지금 달러 환율 얼마야?", "web_search"),  # a figure of today: only a search knows it
        ("현재 코스피 지수 몇이야", "web_search"),
        ("what's the current USD exchange rate?", "web_search"),
        ("금리가 오르면 대출 이자는 어떻게 돼?", None),  # how it works, not today's figure
        ("계약서에 적힌 현재 금리 알려줘", None),  # the user's own terms
        ("내 대출 금리 지금 몇 프로야", None),
        ("회사 근처 날씨", None),  # documents first
        ("What's the weather like in Seoul tomorrow?", "get_weather"),
        ("weather 알려줘", "get_weather"),
        ("Search the web for LangGraph and summarize it", "web_search"),
        ("can you look up the latest LangGraph release?", "web_search"),
        ("what time is it now?", "get_current_datetime"),
        ("a poem about weathering storms", None),  # a word inside a word
        ("research on Korean morphology", None),
        ("위키에서 세종대왕 문서 찾아서 요약해줘", "search_wikipedia"),  # not the user's 문서
        ("위키백과 좀 찾아봐 르네상스", "search_wikipedia"),
        ("look up Seoul on Wikipedia", "search_wikipedia"),
        ("위키드 뮤지컬 줄거리", None),
        ("오늘 미세먼지 저감 대책으로 노후 경유차 운행을 제한한다. " * 8, None),  # pasted text
    ],
)
def test_tool_hints_only_when_plain(question: str, tool: str | None) -> None:
    assert tool_hint(question) == tool


def test_a_pasted_text_or_a_word_inside_a_word_is_no_plain_ask() -> None:
    from dure.korean.route import asks_documents

    assert asks_documents("사내 보안 규정 요약해줘")
    assert not asks_documents(
        "다음 사내 보안 규정을 요약해줘: " + "외부 메일은 승인 후 발송한다. " * 12
    )
    assert asks_documents("research budget policy for our team?")  # not a web search
