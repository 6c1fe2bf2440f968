"""The prompts of the understanding layer's one bounded LLM call per decision (Korean)."""

#: Tokens a yes/no judgement with one short reason may take (the JSON, a sentence at most).
JUDGEMENT_MAX_TOKENS = 96
#: Tokens the intent call may take (decision fields first, then the rewritten query).
INTENT_MAX_TOKENS = 192
#: Tokens a rewrite may take (one sentence of at most 300 characters).
REWRITE_MAX_TOKENS = 160

REWRITE_PROMPT = """대화 기록과 현재 메시지를 보고, 현재 메시지를 대화 기록 없이도 이해되는 요청 한 문장으로 다시 쓰세요.
이전 대화의 제약조건(장소, 시간, 대상, 조건 등)을 하나도 빠뜨리지 마세요.
예: 이전 요청 "영등포 견과류 알레르기 안전한 맛집 추천해줘" 다음의 "더 있어?" → "영등포 견과류 알레르기 안전한 다른 맛집 추천"
JSON 객체 하나로만 답하세요: {{"rewritten_query": "..."}}

현재 시각: {current_datetime}"""

SCOPE_SYSTEM = (
    "당신은 계약서 Q&A 챗봇의 질문 분류기입니다. 사용자는 자신의 계약서를 챗봇에 연결해 두었습니다. "
    "질문이 계약서 내용(조항, 권리와 의무, 기간, 대금, 해지, 책임, 분쟁 등)이나 계약 관계에서 "
    "생기는 일상적인 상황에 관한 것이면 in_scope=true, 계약서와 무관한 주제(날씨, 잡담, 코딩, "
    "일반 상식 등)이면 in_scope=false 입니다. "
    'JSON으로만 답하세요: {"in_scope": true/false, "reasoning": "한 문장 이유"}'
)

SCOPE_USER = "질문: {question}"

PREVIOUS_CONTEXT_SYSTEM = (
    "이전 대화를 참조하는 질문인가요? 현재 질문이 직전 답변의 내용(그 조항, 방금 말한 것, "
    "추가 설명 요청 등)을 알아야 답할 수 있으면 true, 질문만으로 답할 수 있으면 false 입니다. "
    'JSON으로만 답하세요: {"need_previous_context": true/false, "reasoning": "한 문장 이유"}'
)

PREVIOUS_CONTEXT_USER = "직전 대화:\n{previous_turn}\n\n현재 질문: {question}"

INTENT_PROMPT = """당신은 대화형 에이전트의 의도 분류기입니다. 대화 기록과 현재 메시지를 보고 JSON 객체 하나로만 답하세요.

의도(intent):
- new_question: 새로운 주제에 대한 질문이나 요청 (예: "서울 맛집 추천해줘")
- follow_up: 이전 대화의 후속 질문 (예: "더 있어?", "다른 건?")
- clarification: 이전 답변에 대한 명확화 요청 (예: "무슨 말이야?", "예시 들어줘")
- chitchat: 인사, 감사, 잡담 (예: "고마워", "안녕", "ㅋㅋ")

규칙:
1. constraints: 이전 대화에서 이어지는 제약조건(장소, 시간, 대상, 조건 등)을 적으세요. 없으면 "".
2. rewritten_query: 대화 기록 없이도 이해되도록 요청을 다시 쓰세요. follow_up과 clarification은 이전 대화의 제약조건을 하나도 빠뜨리지 마세요.
   예: 이전 요청 "영등포 견과류 알레르기 안전한 맛집 추천해줘" 다음의 "더 있어?" → "영등포 견과류 알레르기 안전한 다른 맛집 추천"
3. needs_tool: 검색, 최신 정보, 날씨, 계산, 현재 시각처럼 도구가 있어야 답할 수 있으면 true. 인사·잡담, 이전 답변만으로 답할 수 있는 명확화, 도구 없이 할 수 있는 작업(본문 번역·요약 등)은 false.
4. 질문 없이 긴 본문(기사, 코드, 데이터)만 붙여 넣었으면 intent는 "new_question", rewritten_query는 "(콘텐츠 분석/처리)", needs_tool은 false입니다.

현재 시각: {current_datetime}"""

INTENT_INPUT = """대화 기록:
{history}

현재 메시지:
{input}"""

ROUTER_PROMPT = """사용자의 질문을 처리할 경로를 고르세요.
- rag: 회사 문서, 정책, 규정 등 저장된 문서에서 정보를 찾아야 하는 질문
- agent: 일반 대화, 계산, 코딩, 날씨, 검색 등

저장된 문서 컬렉션: {collection}
JSON 객체 하나로만 답하세요: {{"route": "rag" 또는 "agent", "reason": "짧은 이유"}}"""

ROUTER_INPUT = """[최근 대화]
{history}

[현재 질문]
{question}"""

NO_HISTORY = "(없음)"
