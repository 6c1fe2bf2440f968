"""A follow-up made to stand alone, and whether a model's rewrite of it says what was said.

A follow-up ("부산은?", "된장찌개는?") is rewritten into a standalone request by one bounded
`fast` call, for the planner and for the search a request asks for. The local 1.5B model often
gets it wrong, and a wrong rewrite sends the search after something else: after a 김치찌개
recipe, "된장찌개는?" came back as "김치찌개는?", "다시 한번 설명해줄래" as a refusal, "서면 통지는
이메일도 돼?" half in Chinese ("…가능吗?"), "그거 위반하면?" with the previous answer pasted on.

So a rewrite is kept only when it is faithful:
- every noun, name and number the user said is in it, except one taken back ("수원 말고 용인");
- it has no Chinese or Japanese characters that the conversation did not have;
- it copies no long stretch (`COPIED_CHARS`) of an earlier answer.

Otherwise (and when the model says nothing new) the request is the message with the earlier
request beside it (`standalone`), which says only what was said.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from difflib import SequenceMatcher

from dure.korean.slots.core import TAKEN_BACK
from dure.retrieval.tokenize import spans

__all__ = ["COPIED_CHARS", "checked", "faithful", "last_user", "standalone"]

#: Characters of an earlier answer a rewrite may not copy in one stretch.
COPIED_CHARS = 16
#: Characters of the earlier request carried beside the message.
EARLIER_CHARS = 120
_SAID = ("NNG", "NNP", "SL", "SN")
_FOREIGN_SCRIPT = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff]")


def _said(history: Sequence[Mapping[str, object]], role: str) -> list[str]:
    return [str(m["content"]) for m in history if m.get("role") == role]


def last_user(history: Sequence[Mapping[str, object]]) -> str:
    """The user's latest earlier message ("" when there is none)."""
    return next(reversed(_said(history, "user")), "")


def faithful(rewrite: str, message: str, history: Sequence[Mapping[str, object]]) -> bool:
    """Whether `rewrite` keeps what `message` said and adds nothing foreign (see the module)."""
    kept = rewrite.casefold()
    for _form, tag, start, end in spans(message):
        word = message[start:end]
        if tag in _SAID and word.casefold() not in kept and not TAKEN_BACK.match(message, end):
            return False
    conversation = message + "".join(str(m["content"]) for m in history)
    if any(ch not in conversation for ch in _FOREIGN_SCRIPT.findall(rewrite)):
        return False
    for answer in _said(history, "assistant"):
        match = SequenceMatcher(None, rewrite, answer, autojunk=False).find_longest_match()
        if match.size >= COPIED_CHARS:
            return False
    return True


def standalone(message: str, history: Sequence[Mapping[str, object]]) -> str:
    """The message with the earlier request beside it ("된장찌개는? (앞선 요청: 김치찌개 레시피
    알려줘)"); the message alone when there was none."""
    earlier = last_user(history).strip()
    if not earlier:
        return message.strip()
    if len(earlier) > EARLIER_CHARS:
        earlier = earlier[:EARLIER_CHARS] + "…"
    return f"{message.strip()} (앞선 요청: {earlier})"


def checked(
    rewrite: str, message: str, history: Sequence[Mapping[str, object]], follows: bool = True
) -> str:
    """`rewrite` when it is faithful (and, for a message that `follows` the earlier turns, says
    more than the message); else `standalone` for such a message, the message itself for another."""
    rewrite = rewrite.strip()
    if rewrite and faithful(rewrite, message, history):
        if not follows or rewrite != message.strip():
            return rewrite
    return standalone(message, history) if follows else message.strip()
