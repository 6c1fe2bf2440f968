"""Answers that say plainly what could not be done, written by rule (no model call).

When every tool a turn ran failed, or the user asks about their documents and none is
registered, a small model answers from its own memory as if it had looked (measured:
"LangGraph는 한글 자연어 처리를 위한 라이브러리입니다." after a failed search; a made-up
temperature with no weather key). These answers replace that call: they name what failed, why
(the tool's own Korean message, which says what would fix it), and that nothing was guessed.
`Gate` keeps any sentence with a figure the sources do not hold from reaching the user.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from dure.events import Thinking, Token, emit
from dure.korean.figures import unsupported, without_clock

NO_DOCUMENTS = (
    "등록된 문서가 없어 찾아볼 수 없습니다. 문서를 추가하면 그 내용에 근거해 답하겠습니다 "
    "(CLI: `dure documents add 파일 --kind document`, 웹 화면: 문서 올리기)."
)


def _listed(reasons: Sequence[str]) -> str:
    return "\n".join(f"- {reason.strip()}" for reason in dict.fromkeys(reasons) if reason.strip())


def tools_failed(reasons: Sequence[str]) -> str:
    """The answer when every tool of the turn failed; `reasons` are the tools' messages."""
    lines = _listed(reasons)
    return (
        "필요한 정보를 도구로 확인하지 못했습니다.\n"
        f"{lines}\n"
        "확인되지 않은 내용은 추측해서 답하지 않겠습니다."
    )


def partly_failed(reasons: Sequence[str]) -> str:
    """The note after an answer built on some tools while others failed."""
    return f"\n\n다음 내용은 도구가 실패해 확인하지 못했습니다.\n{_listed(reasons)}"


#: How much of each result `only_results` shows.
RESULT_CHARS = 300


def only_results(results: Sequence[str]) -> str:
    """The answer when every sentence the model wrote had a figure nothing supports: what the
    tools or documents returned, as they returned it."""
    shown = [r.strip() for r in results if r.strip()]
    lines = "\n".join(f"- {r[:RESULT_CHARS]}{'…' if len(r) > RESULT_CHARS else ''}" for r in shown)
    return f"답변의 문장마다 근거에 없는 수치가 있어, 확인된 결과만 그대로 전합니다.\n{lines}"


def show(sentence: str) -> str:
    """Show an answer sentence as it is (where no `Gate` applies)."""
    emit(Token(content=sentence))
    return sentence


@dataclass
class Gate:
    """Passes answer sentences whose figures the `sources` texts support (by value: "1천분의
    1.5" = "0.15%"), emitting them as tokens; a sentence with a figure no source, question or
    tool output holds never reaches the user, and `report` says it was left out."""

    sources: list[str]
    step: str = "respond"
    #: The current date-time: a date or time it holds is supported, its other numbers are not.
    clock: str = ""
    dropped: list[str] = field(default_factory=list)

    def __call__(self, sentence: str) -> str:
        checked = without_clock(sentence, self.clock) if self.clock else sentence
        if unsupported(checked, self.sources):
            self.dropped.append(sentence.strip())
            return ""
        emit(Token(content=sentence))
        return sentence

    def settle(self, answer: str, results: Sequence[str]) -> str:
        """The answer to keep: `answer`, or, when every sentence of it was left out, the
        `results` themselves by rule (an empty answer would say nothing of what was found)."""
        if answer.strip() or not self.dropped or not any(r.strip() for r in results):
            return answer
        text = only_results(results)
        emit(Token(content=text))
        return text

    def report(self) -> None:
        """Say that sentences were left out (never a silent change)."""
        if self.dropped:
            emit(
                Thinking(
                    step=self.step,
                    content=f"근거 자료에서 확인되지 않는 수치가 있는 문장 {len(self.dropped)}개를 "
                    "답변에서 뺐습니다.",
                )
            )
