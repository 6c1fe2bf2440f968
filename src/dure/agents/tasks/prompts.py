"""Every Korean prompt and fixed message of the task agent, in one place."""

#: The gate's message when it finds every required slot filled (no LLM call).
GATE_MESSAGE = "필요한 정보를 모두 확인했습니다."
CANCELLED = "알겠습니다. 요청을 취소했어요. 다른 도움이 필요하면 말씀해 주세요."
CONFIRM_QUESTION = "{summary} 이대로 예약할까요? (네/아니요)"
CONFIRM_AGAIN = "진행할지 '네' 또는 '아니요'로 답해 주세요."
DECLINED = "예약을 진행하지 않았어요. 조건을 바꾸고 싶으면 다시 말씀해 주세요."
CANCEL_BOOKING_QUESTION = "{summary} 이 시간에 시작하는 내 회의실 예약을 취소할까요? (네/아니요)"
CANCEL_BOOKING_DECLINED = "예약을 그대로 두었어요."
TAXI_QUESTION = "{summary} 이대로 택시를 부를까요? (네/아니요)"
TAXI_DECLINED = "택시를 부르지 않았어요."
TAXI_NOT_CONNECTED = (
    "택시 호출 서비스가 연결되어 있지 않아 실제 호출은 하지 않았어요. "
    "위 내용으로 호출 앱에서 불러 주세요."
)
MODEL_UNAVAILABLE = "언어 모델을 쓸 수 없어 기본 문장으로 진행합니다."

QUESTION_SYSTEM = """당신은 작업 도우미의 질문 담당입니다. 작업에 필요한 정보 중 빠진 것만 묻습니다.
규칙:
- question: '빠진 정보'만 묻는 질문 한 문장 (물음표 하나). 빠진 항목이 여럿이면 한 문장에 함께 묻습니다.
- '확인된 정보'는 절대 다시 묻지 않습니다. question에 확인된 항목의 이름이나 값을 쓰지 않습니다.
- acknowledgement: 확인된 정보를 짧게 확인하는 평서문 (질문 금지, 확인된 정보가 없으면 빈 문자열).
- pattern: 정보를 물으면 ASK, 값이 맞는지 확인을 구하면 CONFIRM, 알리기만 하면 INFORM.
- 존댓말로 짧고 자연스럽게 씁니다.
JSON 객체 하나만 출력합니다: {"pattern": "ASK", "acknowledgement": "...", "question": "..."}"""

QUESTION_USER = """작업: {title}
확인된 정보: {known}
빠진 정보: {missing}
{invalid}사용자의 마지막 말: {last}"""

INTENT_SYSTEM = """사용자의 말이 어떤 작업 요청인지 분류합니다. 가능한 작업:
{catalogue}
- general: 위 작업이 아닌 대화 (인사, 잡담, 사용법 질문 등)
JSON 객체 하나만 출력합니다: {{"intent": "작업 이름"}}"""

EXTRACT_SYSTEM = """사용자의 말에서 아래 항목에 해당하는 표현을 원문 그대로 뽑습니다.
말하지 않은 항목은 null로 둡니다. 추측하지 않습니다. JSON 객체 하나만 출력합니다.
항목: {fields}"""

RANK_SYSTEM = """점심 메뉴 후보를 사용자의 조건에 맞춰 추천할 순서대로 고릅니다.
후보 목록에 있는 이름만, 가장 알맞은 것부터 최대 3개 고릅니다.
JSON 객체 하나만 출력합니다: {"dishes": ["메뉴 이름", ...]}"""

RANK_USER = """조건: {conditions}
후보:
{candidates}"""

MODEL_RANKING_UNAVAILABLE = "언어 모델을 쓸 수 없어 메뉴는 규칙에 따른 기본 순서로 골랐어요."

GENERAL_SYSTEM = """당신은 두레 작업 도우미입니다. 할 수 있는 작업: {tasks}.
사용자의 말에 한국어로 짧고 친절하게 답하고, 도울 수 있는 작업이 있으면 예시와 함께 안내합니다."""
