"""Previous-turn reference: the rules that decide without the example bank or any LLM call.

The messages here are this file's own (never from a blind set). The model is a scripted one
with no replies: reaching the LLM tier would fail the test.
"""

from __future__ import annotations

import pytest

from dure.korean.followup import decide_followup, followup_by_rules
from dure.korean.leaning import leans_on_previous_turn, names_new_topic
from dure.korean.pointing import references_previous_turn
from dure.llm import ModelSet
from dure.settings import Settings
from dure.testing import ScriptedChatModel

PREVIOUS = [
    {"role": "user", "content": "내일 대전 날씨 어때?"},
    {"role": "assistant", "content": "내일 대전은 흐리고 낮 최고 24도예요."},
]


@pytest.mark.parametrize(
    "message",
    [
        "청주는?",
        "모레는요?",
        "KTX는?",
        "세종도 알려줘",
        "천안은 어때?",
        "영어로",
        "중국어로는?",
        "English로",
        "두 줄로 요약 ㄱㄱ",
        "더 쉽게 설명해 주세요",
        "표로 정리해줘",
        "존댓말로 바꿔줘",
        "근거는?",
        "예시 좀",
        "진짜?",
        "왜 그래?",
        "밤에 가면?",
        "3일 늦으면?",
        "둘 중에 뭐가 더 시원해?",
        "두 번째 거 자세히",
    ],
)
def test_a_bare_topic_or_a_request_to_redo_the_answer_leans_on_the_previous_turn(
    message: str,
) -> None:
    assert leans_on_previous_turn(message)
    ruled = followup_by_rules(message, has_previous=True)
    assert ruled is not None
    assert (ruled.refers_to_previous, ruled.decided_by) == (True, "rule")


@pytest.mark.parametrize(
    "message",
    [
        "사무실 이전 비용은 누가 내?",  # 이전: relocation, not "the previous answer"
        "그림 그리는 법 알려줘",
        "그래프 그리는 법",
        "모레 청주 날씨도 알려줘",  # a question of its own: day, place and topic named
        "강남역 근처 맛집 리스트는?",
        "영어 공부 어떻게 해?",
        "요약 잘하는 법 알려줘",
        "번역해줘: 회의는 다음 주로 미뤄졌습니다",  # pasted text brings its own content
        "'수고하셨습니다' 영어로",
        "표 만드는 법",
        "12에서 5 빼면?",  # a sum of its own
        "주말에 대전에서 청주까지 차로 가면?",  # longer: says what it asks
        "이번 달 두 번째 월요일이 며칠이야?",
    ],
)
def test_a_message_that_names_its_own_content_is_not_decided_by_these_rules(
    message: str,
) -> None:
    assert not leans_on_previous_turn(message)


@pytest.mark.parametrize(
    "message",
    [
        "위 내용 한 줄로 줄여줘",
        "위 표를 엑셀용으로 바꿔줘",
        "ㅇㅋ 위 답변 존댓말로",
        "위 코드 주석 달아줘",
        "다시 뽑아줘",
        "ㄱㄱ 목록만 다시 써 줘",
        "일정표 다시 짜줘",
    ],
)
def test_above_and_a_request_to_make_the_answer_again_point_back(message: str) -> None:
    assert references_previous_turn(message)


@pytest.mark.parametrize(
    "message",
    [
        "위 내시경 몇 살부터 받아?",  # 위: the stomach
        "위 건강에 좋은 차 추천해줘",
        "서류 맨 위에 있는 날짜가 계약일이야?",  # the top of a page, not "above"
        "냉장고 앞에 뭐 두면 안 돼?",
        "이력서 다시 쓰는 법",  # how to rewrite, not a request to redo the answer
        "포트폴리오 다시 만드는 방법 알려줘",
    ],
)
def test_above_as_a_noun_and_how_to_redo_something_do_not_point_back(message: str) -> None:
    assert not references_previous_turn(message)


@pytest.mark.parametrize(
    ("message", "refers"),
    [
        ("고마워! 근데 모레 광주 날씨는?", False),
        ("ㄱㅅㄱㅅ 그럼 파스타 면 몇 분 삶아?", False),
        ("감사합니다~ 그런데 주말에 볼 영화 추천해 주세요", False),
        ("고마워요 그럼 그거 영어로도 써줄래?", True),  # a reference word after the thanks
        ("고마워 근데 청주는?", True),  # a bare topic after the thanks
        ("ㅋㅋ 그럼 우산은 필요 없겠네?", True),  # laughter does not close the turn
        # Interjections and acknowledgements around the thanks.
        ("오 ㄳ 그럼 김장 김치 언제 꺼내 먹어야 맛있어?", False),
        ("아하 감사합니다 그럼 전기장판 전기세는 한 달에 얼마쯤 나와요?", False),
        ("알겠어 고마워 ㅎㅎ 그럼 목포는?", True),
        ("고마워요! 혹시 운전면허 적성검사는 어디서 받아요?", False),  # "혹시" after thanks
        ("감사 ㅎㅎ 그리고 김치찌개 끓일 때 참치는 언제 넣어?", False),
        ("고마워 혹시 그거 언제까지야?", True),  # still points back
    ],
)
def test_thanks_then_a_conjunction_opens_a_new_question(message: str, refers: bool) -> None:
    _assert_ruled(message, refers)


def _assert_ruled(message: str, refers: bool) -> None:
    ruled = followup_by_rules(message, has_previous=True, previous_user="내일 대전 날씨 어때?")
    assert ruled is not None
    assert (ruled.refers_to_previous, ruled.decided_by) == (refers, "rule")


@pytest.mark.parametrize(
    ("message", "refers"),
    [
        ("이거 말고 딴 얘긴데, 전세 대출 이자는 보통 몇 퍼센트야?", False),
        ("그건 그렇고 다음 주 제주 항공권 싼 데 어디야?", False),
        ("저거 말고요. 연차 수당 계산 방법이 궁금해요", False),
        ("이제 다른 질문! 노트북 배터리 오래 쓰는 법", False),
        ("그건 됐고 자동차 보험 갱신은 언제 해야 돼?", False),  # the old topic dismissed
        ("이건 나중에 볼게, 전입신고 온라인으로 되나?", False),
        ("딴 거 하나만 물어볼게 여권 재발급 기간 얼마나 걸려?", False),
        ("이건 말고 새로 질문할게요. 등기부등본은 어디서 떼요?", False),
        ("그 레시피 말고 새로 하나만, 닭가슴살 샐러드 드레싱 뭐가 좋아?", False),
        ("이거 말고 하나 더 궁금한 게 있는데 운전면허 갱신 어디서 해?", False),
        ("네 그건 알겠고요, 청년도약계좌 가입 조건은 뭐예요?", False),  # the old topic dismissed
        ("이건 별도 질문이야. 자취방 곰팡이 제거제 추천해줘", False),
        ("앞의 얘기랑 상관없고 건강검진 대상자 조회는 어디서 해?", False),  # set apart
        ("아 다른 건데 자동차 보험 갱신은 언제 해야 돼?", False),
        ("번외로 3갤런은 몇 리터야?", False),  # units count as what it names
        ("갑자기 궁금해졌는데 펭귄도 무릎이 있어?", False),
        ("갑자기 생각났는데 여권 사진 규격이 어떻게 돼?", False),
        ("여담인데 그 영화 감독 누구야?", True),  # announced, but still points back
        ("아 맞다 여권 재발급 수수료 얼마야?", False),  # remembered something else to ask
        ("아 그리고 그건 언제까지야?", True),
        ("아 그리고 이거랑 별개로, 건강검진 대상자 조회는 어디서 해?", False),  # any announcement
        ("이 방법 말고 하나 더 알려줘", True),  # another one of what was told
        ("새로 물어볼게 그거 언제까지야?", True),  # announced, but still points back
        ("그건 됐고 왜 그렇게 된 거야?", True),  # nothing named: still about the answer
        ("그거 말고 다른 거 추천해줘", True),  # another one of what was listed
        ("다른 질문인데 그 조항은 누가 정해?", True),  # the new question still points back
    ],
)
def test_a_new_question_announced_names_its_own_subject(message: str, refers: bool) -> None:
    _assert_ruled(message, refers)


@pytest.mark.parametrize(
    ("message", "leans"),
    [
        ("팀장님께 드릴 보고서 형식으로 다듬어 줘", True),
        ("카톡 공지처럼 바꿔줄래?", True),
        ("손님한테 보낼 안내문으로 작성해 주세요", True),
        ("자기소개서를 메일 형식으로 써줘", False),  # names what to rewrite
        ("보고서 양식으로 작성하는 요령", False),
        ("엑셀로 만들어줘 가계부", False),
        # however long the description of the form, nothing is given to make it from
        ("고객센터 전화할 때 읽을 대본처럼 만들어줘", True),
        ("물류회사 영업직 버전으로 바꿔줘 좀 더 짧게", True),
        ("협력사에 보낼 공지로 정리해줘 날짜는 3/4", True),
        ("회의록을 공지로 정리해줘", False),  # names what to make it from
    ],
)
def test_a_request_to_make_the_answer_into_a_format_leans_on_it(message: str, leans: bool) -> None:
    assert leans_on_previous_turn(message) is leans


@pytest.mark.parametrize(
    ("message", "points"),
    [
        ("3영업일이라고 하셨는데 연휴 끼면요?", True),  # what was said, quoted back
        ("7일 안에 환불된다고 했잖아 근데 10일 지났어", True),
        ("과장님이 내일까지라고 하셨는데 연장 돼?", False),  # someone else said it
        ("뉴스에서 금리 오른다고 했는데 대출 갈아타야 돼?", False),
    ],
)
def test_what_was_said_quoted_back_points_back(message: str, points: bool) -> None:
    assert references_previous_turn(message) is points


def test_article_references_and_an_empty_history_stay_false() -> None:
    named = followup_by_rules("제12조는?", has_previous=True)
    assert named is not None and not named.refers_to_previous
    alone = followup_by_rules("영어로", has_previous=False)
    assert alone is not None and not alone.refers_to_previous


@pytest.mark.parametrize(
    "message",
    ["12조 맞아? 14조 같던데", "제3조 다시 확인해 주세요", "그게 정말 8조에 있는 거 확실해?"],
)
def test_an_article_named_to_check_the_answer_is_not_a_new_subject(message: str) -> None:
    ruled = followup_by_rules(message, has_previous=True)
    assert ruled is None or ruled.refers_to_previous


async def test_decided_by_rule_without_any_model_call(settings: Settings) -> None:
    no_llm = ModelSet(settings, ScriptedChatModel([]))
    redo = await decide_followup("세 줄로 줄여줘", PREVIOUS, no_llm)
    topic = await decide_followup("청주는?", PREVIOUS, no_llm)
    assert (redo.refers_to_previous, redo.decided_by) == (True, "rule")
    assert (topic.refers_to_previous, topic.decided_by) == (True, "rule")


async def test_a_previous_turn_of_small_talk_holds_nothing_to_lean_on(settings: Settings) -> None:
    no_llm = ModelSet(settings, ScriptedChatModel([]))
    greeted = [
        {"role": "user", "content": "안녕하세요~"},
        {"role": "assistant", "content": "안녕하세요! 무엇을 도와드릴까요?"},
    ]
    for message in ("그럼 하나만 물어볼게, 모레 춘천 날씨는?", "그 계약서 해지 조항 보여줘"):
        d = await decide_followup(message, greeted, no_llm)
        assert (d.refers_to_previous, d.decided_by) == (False, "rule")
    pointed = await decide_followup("그 조항 다시 보여줘", PREVIOUS, no_llm)
    assert pointed.refers_to_previous


@pytest.mark.parametrize(
    ("message", "points"),
    [
        ("이 조건이면 나도 받을 수 있어?", True),
        ("저 방법은 돈이 얼마나 들어?", True),
        ("이거 회사에도 똑같이 돼?", True),
        ("요거 초보도 할 수 있음?", True),
        ("세 번째 거 좀 더 알려줘", True),
        ("첫번째꺼 가격은?", True),
        ("마지막 거로 할게", True),
        ("거기 예약 따로 해야 돼?", True),
        ("말씀하신 서류는 어디서 떼요?", True),
        ("추천해준 곳 주차 돼?", True),
        ("해당 조항 원문 보여줘", True),
        ("친구가 추천해준 식당 어때?", False),  # someone else told it
        ("'기타 비용'이라는 항목 있던데 거기엔 뭐가 들어가?", False),  # what the message named
        # "이/저" before the user's own document or the present moment: left to the bank.
        ("이 계약서에서 해지 조건은 뭐야?", False),
        ("이 시간에 여는 약국 있어?", False),
        ("이번 주말에 뭐 하지", False),
        ("세 번째 조항 보여줘", False),
        # The message's own clause said what the pointer points at.
        ("동생이 중고폰을 샀는데 그 폰이 자꾸 꺼져. 어떻게 해?", False),
        ("요즘 뜨는 탕후루 있잖아, 그거 칼로리 높아?", False),
        ("월세를 두 달 밀렸는데 그러면 집주인이 바로 내보낼 수 있어?", False),
        ("계약서 보는 중인데 그 조항 다시 설명해줘", True),  # one noun: not a clause of its own
        ("그 조항 있잖아, 위반하면 어떻게 돼?", True),
        # "아까"/"방금" in a story of the user's own day, and before what was said.
        ("아까 편의점 갔다가 생각났는데 컵라면 유통기한 지나도 먹어도 돼?", False),
        ("아까 말씀하신 기한 다시 알려주세요", True),
        ("방금 답변 한 줄로", True),
        ("아까 거 다시", True),
        # A sentence of its own before the pointer told the story it points at.
        ("아까 마트 갔는데 계산원이 영수증을 두 번 찍었더라. 이거 환불 받을 수 있어?", False),
        ("설명 잘 들었어. 그거 표로 정리해줘", True),  # one noun: not a story of its own
        # A quoted phrase is mentioned, and what "이 …" points at may follow in the message.
        ("'그 무렵'을 영어로 하면 뭐야?", False),
        ("이 문장 자연스럽게 고쳐줘: 내일까지 회신 부탁 드리겠습니다", False),
        ("이 에러 왜 나? KeyError: 'name'", False),
        ("이 문장 좀 더 자연스럽게", True),
        ("이 회의 3:30에 시작하는 거 맞아?", True),  # a colon in a time shows nothing
        # "위에" upstairs, as a direction or the stomach, and the text above.
        ("위에 사는 집에서 물이 새는데 누구한테 말해야 돼?", False),
        ("위에서 아래로 정렬하는 단축키 뭐야", False),
        ("매운 거 먹으면 위에 안 좋아?", False),
        ("위에 있는 내용 표로 만들어줘", True),
    ],
)
def test_a_demonstrative_or_an_ordinal_pick_points_back(message: str, points: bool) -> None:
    assert references_previous_turn(message) is points


@pytest.mark.parametrize(
    ("message", "leans"),
    [
        ("출처 링크 있어?", True),
        ("법 조항 번호도 알려줄래?", True),
        ("어떤 법에 나와 있어?", True),
        ("이유가 뭔데", True),
        ("근로기준법 조항 번호 알려줘", False),  # names the law it asks about
        ("이유식 언제 시작해?", False),
        ("법인 설립 절차 알려줘", False),
    ],
)
def test_a_question_about_the_answers_basis_leans_on_it(message: str, leans: bool) -> None:
    assert leans_on_previous_turn(message) is leans


@pytest.mark.parametrize(
    ("message", "points"),
    [
        ("그 수수료 환불은 안 돼?", True),  # Kiwi reads an opening "그" as an interjection
        ("저 할인율은 회원만 돼?", True),
        ("후자가 더 싸?", True),
        ("전자는 배송 며칠 걸려?", True),
        ("확실해? 약관에 그렇게 써 있어?", True),
        ("정확한 거 맞아요?", True),
        ("계산 맞아?", True),
        ("어디서 나온 내용이에요?", True),
        ("왜 안 돼요?? 작년엔 됐는데", True),
        ("맞다! 모레 광주 날씨는?", False),  # "oh right", not doubt
        ("왜 하늘은 파래?", False),  # a why-question of its own
        ("진짜 궁금한데 블랙홀은 뭐야?", False),
        ("전자계약도 효력 있어?", False),  # 전자: electronic
        ("저 내일 출근해요", False),
        ("어디서 봤는데 커피가 몸에 좋대", False),  # the user saw it somewhere
        # "Conversely" opening a message: the other side of what was just said.
        ("반대로 세입자가 먼저 나가겠다고 하면?", True),
        ("거꾸로 회사가 먼저 계약을 끊으면 어떻게 돼?", True),
        ("반대말 사전 추천해줘", False),
        ("글자를 반대로 뒤집는 파이썬 코드 알려줘", False),
    ],
)
def test_a_doubt_or_a_demonstrative_at_the_start_points_back(message: str, points: bool) -> None:
    assert references_previous_turn(message) is points


@pytest.mark.parametrize(
    ("message", "refers"),
    [
        ("그거랑 별개로, 내일 인천 공항 가는 리무진 버스 첫차 몇 시야?", False),
        ("이거랑 상관없이 전세 보증보험 가입 조건이 뭐야?", False),
        ("이 논문 저자 소속이 어디야?", None),  # the user's own document: left to the bank
    ],
)
def test_set_apart_or_the_users_own_document(message: str, refers: bool | None) -> None:
    verdict = followup_by_rules(message, True)
    if refers is None:
        assert verdict is None
    else:
        assert verdict is not None and verdict.refers_to_previous is refers


@pytest.mark.parametrize(
    ("message", "leans"),
    [
        ("보증금 5천에 두 달 반 밀리면", True),  # a longer condition still asks "then what?"
        ("중간에 사흘 더 늘려서 쓰게 되면?", True),
        ("엑셀에서 중복된 행을 한 번에 지우려면?", False),  # how to do something of its own
        ("연봉 5400을 12로 나누면?", False),  # a sum of its own
    ],
)
def test_a_condition_without_a_question_of_its_own_leans_on_the_previous_turn(
    message: str, leans: bool
) -> None:
    assert leans_on_previous_turn(message) is leans


@pytest.mark.parametrize(
    ("message", "new"),
    [
        ("책임자 바꾸려면?", True),  # 책임자: not in the previous turn
        ("SRT는?", True),
        ("30일 안 지나면?", False),  # only what the previous turn holds
        ("통지는?", False),
        ("근거는?", False),  # about the answer itself
        ("한 줄로 요약해줘", False),
    ],
)
def test_a_new_subject_is_a_noun_the_previous_turn_does_not_hold(message: str, new: bool) -> None:
    previous = [
        "중간에 그만두고 싶으면 어떻게 해?",
        "제12조에 따르면 30일 전에 서면으로 통지하면 됩니다.",
    ]
    assert names_new_topic(message, previous) is new
