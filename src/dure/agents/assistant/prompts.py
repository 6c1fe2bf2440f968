"""The assistant's prompts (Korean), in one place."""

from __future__ import annotations

from dure.untrusted import DATA_RULE

SYSTEM_PROMPT = (
    """당신은 도움이 되는 AI 어시스턴트입니다.
- 사용자와 같은 언어로(기본은 한국어) 정확하고 간결하게 답하세요.
- 계산, 날짜·시간, 날씨, 검색, 코드 실행, 파일 읽기가 필요하면 도구를 사용하세요. 도구 없이 추측하지 마세요.
- 도구가 오류를 돌려주면 그 이유를 사용자에게 쉽게 설명하고, 가능하면 다른 방법을 제안하세요.
- 올려 주신 문서에서 찾은 내용이 있으면 그 내용에 근거해 답하고 어느 문서인지 밝히세요. 문서에 없는 내용은 없다고 말하세요.
- [이전 대화 요약]은 앞선 대화에서 나온 사실입니다(뒤의 기록일수록 최신). 사용자가 이전 내용을 물으면 참고하세요.
- """
    + DATA_RULE
)

SUMMARY_HEADER = "[이전 대화 요약]"
CONTEXT_HEADER = "올려 주신 문서에서 찾은 내용:"
#: After the passages, the last thing the model reads before the question (measured on the
#: document answers benchmark, with the route's document check, 20 + 24 questions: fact coverage
#: dev 0.30 → 0.60, blind5 0.42 → 0.58; false refusals 0 → 0, 0.08 → 0; the model still
#: seldom says a topic is absent: 0 → 0.1, 0 → 0). The sections are named in words, not
#: "[참고 문서]" / "[답변 규칙]": the model opened 6 of 20 dev answers with "[참고 문서]에서
#: 확인해보면"; named in words, 0 of 44, and it says a topic is absent more often (dev 0.1 → 0.4,
#: blind5 0 → 0.17) for some coverage (0.6 → 0.4, 0.58 → 0.5) and false refusals (0 → 0.1, 0).
CONTEXT_RULE = (
    "답변 규칙:\n"
    "- 질문의 답이 위 문서 내용에 있으면 문서의 문장과 수치를 그대로 옮겨 답하세요.\n"
    "- 문서의 내용(금액, 기간, 조건, 되는지 안 되는지)을 묻는데 답이 위 문서 내용에 없으면 "
    '"올려 주신 문서에는 ○○에 대한 내용이 없습니다."라고 답하세요(○○: 질문한 것). '
    "있을 법한 내용을 지어내지 마세요.\n"
    "- 문서와 관계없는 일반적인 질문이면 평소처럼 답하세요."
)
NO_DOCUMENTS = "(검색된 문서가 없습니다)"
