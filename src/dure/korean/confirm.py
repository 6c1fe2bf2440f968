"""Yes, no or cancel: how a user answers a confirmation ("이대로 예약할까요?", "실행할까요?").

One reading serves the task agent's confirmation and the approval of a tool's side effects.
Rules only: a reply counts as yes when it starts with a yes word ("네 예약해 주세요"), not
merely with its sound ("어떻게"); no and cancel are words anywhere in it.
"""

from __future__ import annotations

import re
from typing import Literal

Reply = Literal["yes", "no", "cancel"]

CANCEL = re.compile(r"취소|그만\s*(?:할래|하자|해)|안\s*할래|필요\s*없어|됐어")
_NO = re.compile(
    r"아니|아뇨|싫어|안\s*(?:해|할)|하지\s*마|거절|거부|\bno\b|\bnope\b", re.IGNORECASE
)
_YES = frozenset(
    "네 넵 넹 네네 예 응 웅 어 ㅇㅇ ㅇㅋ 좋아 좋아요 그래 그래요 맞아 맞아요 오케이 ok okay 콜 "
    "진행 진행해 진행해요 진행해줘 예약 예약해 예약해요 예약해줘 승인 승인해 승인합니다 허용 "
    "실행 실행해 실행해줘 yes y approve".split()
)


def confirmation(text: str) -> Reply | None:
    """`cancel`, `no` or `yes` for a reply to a confirmation, or None when it is none of them."""
    if CANCEL.search(text):
        return "cancel"
    if _NO.search(text):
        return "no"
    first = re.split(r"[\s,.!~]+", text.strip().lower(), maxsplit=1)[0]
    return "yes" if first in _YES else None
