"""Every prompt and fixed message of the contract agent, in Korean, in one place."""

from __future__ import annotations

import re

from dure.untrusted import DATA_RULE

# ---------------------------------------------------------------- fixed messages

REFUSAL = (
    "죄송합니다. 저는 연결된 계약서에 대한 질문에만 답할 수 있습니다. "
    "계약 기간, 대금 지급, 해지 조건처럼 계약서 내용에 대해 물어봐 주세요."
)
NO_CONTRACT = (
    "이 대화에 연결된 계약서가 없습니다. 질문할 계약서를 먼저 지정해 주세요 "
    '(예: dure ask --agent contract --contract 계약서.md "제5조 내용이 뭐야?").'
)
CONTRACT_CONFLICT = (
    "이 대화는 이미 다른 계약서({bound})에 연결되어 있습니다. "
    "다른 계약서에 대해 물으려면 새 대화(스레드)를 시작해 주세요."
)
STRUCTURED_ERROR = (
    "죄송합니다. 모델의 판단 결과를 해석하지 못해 답변을 확정할 수 없었습니다. "
    "같은 질문을 조금 바꾸어 다시 물어봐 주세요."
)
MAX_ITERATIONS_NOTE = "최대 탐색 횟수({n}회)에 도달해 지금까지 모은 정보로 답합니다."
NO_PROGRESS_NOTE = "더 찾을 새 정보가 없어 지금까지 모은 정보로 답합니다."
CLEAR_LEAD = "검색 결과 {article} 다른 조항보다 뚜렷하게 앞섭니다."  # "제2조가" (particles)
FOLLOW_UP_SEARCHED = "직전 대화와 이번 검색 결과로 답합니다."


# ---------------------------------------------------------------- planner

PLANNER_SYSTEM = (
    "당신은 계약서 Q&A 에이전트의 계획 담당입니다. 현재 상태를 분석하여 다음에 실행할 도구를 "
    "선택하세요. 서로 독립적인 도구는 한 번에 여러 개 선택해도 됩니다.\n"
    "도구:\n{manifest}\n\n"
    "**중요**: 계약서 조회가 필요하지 않다면 도구를 선택하지 마세요.\n"
    "- 일반적인 인사, 감사 표현\n"
    "- 이전 답변이나 이미 수집된 정보로 충분히 답할 수 있는 질문\n"
    "이미 실행한 도구를 같은 인자로 다시 호출하지 마세요. 조 번호를 알면 get_article_by_index 를, "
    "조 번호를 모르면 hybrid_search 를 쓰세요. 표준계약서와 비교가 필요할 때만 "
    "lookup_standard_contract 를 쓰세요."
)
PLANNER_USER = """질문: {user_message}
{previous}
계약서 목차:
{toc}

이미 실행한 도구:
{tool_history}

수집된 정보:
{collected}

탐색한 조항: {explored}
미탐색 조항(탐색한 조항이 참조함): {unexplored}
missing_info: {missing_info}"""
PLANNER_PREVIOUS = "\n직전 대화 (이 질문이 참조함):\n{previous_turn}\n"

# ---------------------------------------------------------------- evaluator and respond
# Both calls send the same system prompt and the same collected information and question, and
# differ only in the task that follows: the model evaluates that shared prefix once and the
# answer reuses it from the prompt cache.

ANSWER_SYSTEM = (
    "당신은 사용자의 계약서를 설명해 주는 한국어 상담원입니다. 수집된 정보만 근거로 판단하고 "
    "답합니다. " + DATA_RULE
)
ANSWER_USER = """수집된 정보:
{context}

질문: {user_message}"""
EVALUATOR_TASK = (
    "위 정보로 질문에 답할 수 있는지 평가하세요. 탐색한 항목: {explored}. 미탐색 항목: "
    "{unexplored}. 질문에 직접 답할 수 있으면 is_sufficient=true 입니다. 부족하면 무엇이 더 "
    "필요한지 missing_info 에 구체적으로 (가능하면 조 번호나 찾을 내용으로) 적으세요. "
    "reasoning 은 한국어 한 문장입니다."
)
RESPOND_TASK = (
    '근거가 된 조항을 조 번호로 밝히며 답하세요 (예: "제5조에 따르면 …"). 사용자 계약서와 '
    "표준계약서를 구분해서 말하세요. 질문에 답하는 금액·비율·기간·날짜는 조항에 적힌 그대로 "
    "쓰세요. 정보에 없는 내용은 추측하지 말고 계약서에서 확인되지 않는다고 말하세요. 핵심만 "
    "간결하게 (다섯 문장 이내로) 한국어로 답하세요."
)
#: The answer when the Gate left out every sentence (a figure no article holds, or the question
#: said again): the best-matching article speaks for itself.
ONLY_THE_ARTICLE = (
    "조항으로 뒷받침되는 답변 문장이 없어, 가장 관련 있는 {article}의 원문을 그대로 전합니다."
)
LIMIT_REACHED_TASK = " 탐색 한도에 도달했으니 부족한 정보는 부족하다고 밝히세요."
SMALLTALK_SYSTEM = (
    "당신은 계약서 Q&A 챗봇입니다. 사용자의 인사나 감사에 한두 문장으로 친절하게 답하고, "
    "연결된 계약서에 대해 무엇이든 물어볼 수 있다고 안내하세요."
)
CONTEXT_CONTRACT = "## 사용자 계약서: {doc}\n{body}"
CONTEXT_STANDARD = "## 표준계약서 (비교 기준, 사용자 계약서 아님): {doc}\n{body}"
CONTEXT_OTHER = "## 기타 정보\n{body}"
CONTEXT_PREVIOUS = "## 직전 대화\n{previous_turn}"
CONTEXT_FAILED = "{tool} 실패: {why}"
CONTEXT_EMPTY = "(수집된 정보 없음)"
#: The labels above, and the previous turn's (`사용자:` / `챗봇:`): an answer line opening with one
#: repeats the prompt (the 1.5B model, given only the previous turn, wrote "## 직전 대화",
#: "사용자: …", "(수집된 정보 없음)", "질문: …" and nothing else).
PROMPT_LABELS = re.compile(
    r"^[#>*\s-]*(?:(?:직전 대화|수집된 정보|사용자 계약서|표준계약서|기타 정보)\s*(?:$|[:(])"
    r"|\(수집된 정보 없음\)|(?:질문|사용자|챗봇)\s*:)"
)
