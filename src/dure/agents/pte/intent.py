"""Intent: the classifier's output schema, and the rule that settles obvious chitchat.

The rule only fires when the whole message is a greeting, thanks or laughter ("고마워!",
"ㅋㅋㅋ", "안녕하세요~"), so nothing with a request in it skips the classifier. Short
agreements ("네", "좋아") are left to the classifier: after an offer ("번역해 드릴까요?")
they are a follow-up request, not chitchat.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Literal

from pydantic import BaseModel, Field

Intent = Literal["new_question", "follow_up", "clarification", "chitchat"]

_CHITCHAT = re.compile(
    r"""^(?:
        고마워(?:요)?|고맙습니다|고맙다|감사(?:합니다|해요|해)?|ㄱㅅ|ㄳ|땡큐|
        안녕(?:하세요|하십니까)?|ㅎㅇ|반가워(?:요)?|반갑습니다|
        잘\s?가(?:요)?|잘\s?있어(?:요)?|수고(?:하셨습니다|했어|하세요)?|
        [ㅋㅎㅠㅜ]+|
        hi|hello|hey|thanks|thank\s?you|thx|bye
    )(?:\s*[ㅋㅎㅠㅜ]+)?$""",
    re.VERBOSE | re.IGNORECASE,
)
_DECORATION = re.compile(r"[\s!~.?^*♡♥❤😊🙂😀😄🙏👍]+")


def is_chitchat(text: str) -> bool:
    """True when the whole message is an obvious greeting, thanks or laughter (no LLM needed)."""
    core = _DECORATION.sub(" ", unicodedata.normalize("NFC", text)).strip()
    return bool(core) and len(core) <= 20 and bool(_CHITCHAT.match(core))


class IntentDecision(BaseModel):
    """What the intent classifier answers (field order is the order the model should think in)."""

    intent: Intent = Field(description="new_question | follow_up | clarification | chitchat")
    constraints: str = Field(
        "", description="이전 대화에서 이어지는 제약조건 (장소, 조건, 대상 등). 없으면 빈 문자열"
    )
    rewritten_query: str = Field(description="대화 맥락과 제약조건을 모두 담아 재작성한 요청")
    needs_tool: bool = Field(description="외부 도구(검색, 날씨, 계산 등)가 필요하면 true")
