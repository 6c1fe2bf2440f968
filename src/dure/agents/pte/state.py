"""The plan-then-execute agent's state (docs/agents/pte.md), its input and its output."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any, TypedDict

from dure.agent import Answer, UserTurn
from dure.korean.time import seoul_now_text
from dure.sources import Source, unique_sources
from dure.tools.base import ToolRegistry

if TYPE_CHECKING:
    from dure.agents.pte.deps import Deps


class PTEState(TypedDict, total=False):
    """The plan-then-execute graph's state, field for field as docs/agents/pte.md lists it."""

    # 입력
    input: str  # 사용자 요청 원문
    messages: list[dict]  # 대화 히스토리 [{"role": "user"|"assistant", "content": "..."}]
    current_datetime: str  # 현재 시각 (KST)

    # Intent Classifier 출력
    intent: str  # new_question | follow_up | clarification | chitchat
    rewritten_query: str  # 명확하게 재작성된 쿼리
    needs_tool: bool  # 도구 필요 여부

    # 도구 정보
    tool_manifest: str  # 사용 가능한 도구 설명
    available_tools: list[str]  # 도구 이름 목록

    # 계획
    plan: list[dict]  # 실행 대기 중인 step 목록

    # 실행 로그
    past_steps: list[dict]  # 실행 완료된 step과 결과 (감사 기록)

    # 제어
    replan_count: int  # 재계획 횟수 (무한 루프 방지)
    error: str | None  # 에러 메시지 (있으면 즉시 중단)
    error_code: (
        str | None
    )  # 에러 코드 ErrorCode의 값 (그래프는 이 코드로 분기; 체크포인트에는 문자열)

    # 출력
    result: str | None  # 사용자에게 반환할 최종 결과


def current_datetime(now: datetime | None = None) -> str:
    """The time in Seoul as the prompts show it, e.g. `2025-03-01 (토) 14:05 KST`."""
    return seoul_now_text(now)


def make_input(turn: UserTurn, deps: Deps) -> PTEState:
    """A new turn: the message, the time in Seoul, the tool manifest, per-turn fields reset.

    `messages` is left out unless a previous turn is given explicitly: the checkpointer
    carries the thread's history forward.
    """
    state = turn_input(turn.message, deps.tools)
    if turn.previous_turn is not None:
        state["messages"] = [
            {"role": m["role"], "content": m["content"]} for m in turn.previous_turn
        ]
    return state


def turn_input(message: str, tools: ToolRegistry) -> PTEState:
    """Every per-turn field reset for `message`."""
    return {
        "input": message,
        "current_datetime": current_datetime(),
        "intent": "",
        "rewritten_query": "",
        "needs_tool": False,
        "tool_manifest": tools.manifest(),
        "available_tools": tools.names(),
        "plan": [],
        "past_steps": [],
        "replan_count": 0,
        "error": None,
        "error_code": None,
        "result": None,
    }


def output(values: PTEState) -> Answer:
    """The answer and the sources the successful steps returned."""
    return Answer(values.get("result") or "", step_sources(values.get("past_steps") or []))


def step_sources(past_steps: list[dict[str, Any]]) -> list[Source]:
    """The sources the successful steps returned, without repeats."""
    return unique_sources(
        [
            Source.model_validate(s)
            for r in past_steps
            if r.get("status") == "success"
            for s in r.get("sources", [])
        ]
    )
