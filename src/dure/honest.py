"""Answers that say plainly what could not be done, written by rule (no model call).

When every tool a turn ran failed, or the user asks about their documents and none is
registered, a small model answers from its own memory as if it had looked (measured:
"LangGraph는 한글 자연어 처리를 위한 라이브러리입니다." after a failed search; a made-up
temperature with no weather key). These answers replace that call: they name what failed, why
(the tool's own Korean message, which says what would fix it), and that nothing was guessed.
"""

from __future__ import annotations

from collections.abc import Sequence

NO_DOCUMENTS = (
    "등록된 문서가 없어 찾아볼 수 없습니다. 문서를 추가하면 그 내용에 근거해 답하겠습니다 "
    "(CLI: `dure documents add 파일 --kind document`, 웹 화면: 문서 올리기)."
)


def tools_failed(reasons: Sequence[str]) -> str:
    """The answer when every tool of the turn failed; `reasons` are the tools' messages."""
    lines = "\n".join(f"- {reason.strip()}" for reason in dict.fromkeys(reasons) if reason.strip())
    return (
        "필요한 정보를 도구로 확인하지 못했습니다.\n"
        f"{lines}\n"
        "확인되지 않은 내용은 추측해서 답하지 않겠습니다."
    )
