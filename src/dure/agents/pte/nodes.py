"""The graph's nodes, one function per node, named as docs/agents/pte.md names them.

LLM calls per node follow its table: intent_classifier 1 (0 for obvious chitchat),
planner 1, executor 0, replanner 1 per failure, final_answer 1, error_handler 0.
"""

from __future__ import annotations

import json
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from dure import honest
from dure.agents.pte import prompts
from dure.agents.pte.dag import planned_args, run_plan, successful_outputs
from dure.agents.pte.deps import AGENT_NAME, Deps
from dure.agents.pte.plan import FAIL_CLOSED, INPUT_CHARS, FailClosed, compile_plan
from dure.agents.pte.state import PTEState, step_sources
from dure.errors import ErrorCode
from dure.events import (
    ErrorEvent,
    Generating,
    Planning,
    SourcesEvent,
    Thinking,
    Token,
    ToolResultEvent,
    ToolSelected,
    emit,
)
from dure.korean.decision import decision_event
from dure.korean.intent import decide_intent
from dure.korean.route import asks_documents, tool_hint
from dure.korean.slots.when import named_day
from dure.korean.time import seoul_now
from dure.llm import StructuredOutputError
from dure.llm.answer import answer_in_kind
from dure.tools.approval import approve, policy
from dure.untrusted import DATA_RULE, as_data

#: Messages of earlier turns shown to the models.
PROMPT_HISTORY = 10
#: Messages kept in the thread's state (older ones stay in the checkpoint history only).
STORED_HISTORY = 40
#: Longest single text (message, step output) put into a prompt.
CLIP_CHARS = 3000


def _clip(text: str, limit: int = CLIP_CHARS) -> str:
    return text if len(text) <= limit else f"{text[:limit]} …(이하 {len(text) - limit:,}자 생략)"


def _chat_history(messages: list[dict]) -> list[BaseMessage]:
    return [
        HumanMessage(_clip(str(m["content"])))
        if m["role"] == "user"
        else AIMessage(_clip(str(m["content"])))
        for m in messages[-PROMPT_HISTORY:]
    ]


def _step_line(step: dict[str, Any]) -> str:
    return json.dumps(step, ensure_ascii=False)


def _records_text(records: list[dict[str, Any]]) -> str:
    blocks = [
        f"- {_step_line(r['step'])} → {r['status']}\n"
        + as_data(_clip(str(r["output"])), r["step"].get("tool", ""))
        for r in records
    ]
    return "\n".join(blocks) or "(없음)"


def _tools_of(plan: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"name": s["tool"], "args": {k: v for k, v in s.items() if k != "tool"}} for s in plan]


def _with_turn(state: PTEState, result: str) -> list[dict]:
    """The thread's history with this turn appended (earlier turns' audit trails stay in the
    checkpoint history, not here, so every checkpoint does not copy every past output)."""
    turn = [{"role": "user", "content": state["input"]}, {"role": "assistant", "content": result}]
    return [*(state.get("messages") or []), *turn][-STORED_HISTORY:]


async def intent_classifier(state: PTEState, *, deps: Deps) -> PTEState:
    """Intent, a context-complete rewrite of the request, and whether tools are needed."""
    emit(Thinking(step="intent_classifier", content="의도를 파악하고 질문을 정리하는 중입니다."))
    try:
        d = await decide_intent(
            state["input"], state.get("messages") or [], deps.models, state["current_datetime"]
        )
    except StructuredOutputError as e:  # fail closed: no guessed intent
        return FailClosed(ErrorCode.INTENT, e.reason).update()
    verdict = f"{d.intent} · {'도구 필요' if d.needs_tool else '도구 불필요'}"
    emit(decision_event("intent_classifier", d.decided_by, verdict, f"질문: {d.rewritten_query}"))
    return {"intent": d.intent, "rewritten_query": d.rewritten_query, "needs_tool": d.needs_tool}


async def planner(state: PTEState, *, deps: Deps) -> PTEState:
    """Compile the request into a JSON plan over the allowed tools (one LLM call)."""
    emit(Planning(content="실행 계획을 세우는 중입니다."))
    messages = [
        SystemMessage(
            prompts.PLANNER_PROMPT.format(
                tool_manifest=state.get("tool_manifest") or "(없음)",
                first_id=1,
                current_datetime=state["current_datetime"],
            )
        ),
        HumanMessage(
            prompts.PLANNER_INPUT.format(
                rewritten_query=state.get("rewritten_query") or state["input"],
                input=_clip(state["input"]),
            )
        ),
    ]
    try:
        plan = await compile_plan(
            deps.models("smart"), messages, state.get("available_tools") or []
        )
    except FailClosed as e:
        return e.update()
    if not any(s["tool"] in honest.SEARCHES for s in plan):  # looks nothing up: a plain ask's step
        step_id = max((s["step_id"] for s in plan), default=0) + 1
        if step := _asked_step(state, step_id):
            plan = [*plan, step]
    plan = [_with_asked_day(s, state["input"]) for s in plan]
    emit(ToolSelected(content=f"{len(plan)}단계 계획", tools=_tools_of(plan)))
    return {"plan": plan}


def _with_asked_day(step: dict[str, Any], question: str) -> dict[str, Any]:
    """A clock step given the day the request names when the planner's day is another or not
    one the rules read (the 1.5B planner wrote `{"day": "next_monday"}` for "다음 주 금요일이
    며칠이야?" and `{"day": "오늘"}` for "오늘부터 1년 뒤면 며칠이야?")."""
    if step["tool"] != "get_current_datetime":
        return step
    now = seoul_now()
    given = step.get("input")
    args = dict(given) if isinstance(given, dict) else {}  # a plain input is a time zone
    day = args.get("day")
    asked = named_day(question, now)
    planned = named_day(day, now) if isinstance(day, str) else None
    if asked is None or (planned is not None and planned[1] == asked[1]):
        return step
    return {**step, "input": {**args, "day": asked[0]}}


def _asked_step(state: PTEState, step_id: int) -> dict[str, Any] | None:
    """The step a request plainly asks for — a search of the user's documents, the web or
    Wikipedia, the request itself as the query — added when the plan looks nothing up, so that
    the answer never comes from the model's memory as if it had searched."""
    query = state.get("rewritten_query") or state["input"]
    asked = (state["input"], query)
    tool = (
        "search_documents"
        if any(asks_documents(t) for t in asked)
        else next((h for t in asked if (h := tool_hint(t))), None)
    )
    if tool not in honest.SEARCHES or tool not in (state.get("available_tools") or []):
        return None
    return {"step_id": step_id, "tool": tool, "input": query[:INPUT_CHARS]}


async def executor(state: PTEState, *, deps: Deps) -> PTEState:
    """Run the plan without any LLM call; independent steps run concurrently."""
    plan = state.get("plan") or []
    past = state.get("past_steps") or []
    limit = deps.settings.pte.max_parallel_steps
    emit(Thinking(step="executor", content=f"{len(plan)}개 단계를 실행합니다 (동시 최대 {limit})."))

    def stream(record: dict[str, Any]) -> None:
        emit(
            ToolResultEvent(
                tool=record["step"]["tool"],
                ok=record["status"] == "success",
                content=_clip(str(record["output"]), 300),
                step=record,
            )
        )

    outputs = successful_outputs(past)
    # Every approval first (resuming re-runs this node, so no step may have run before).
    # Results already collected this turn may be steering a re-plan: on a server, asked.
    planned = [(s["tool"], planned_args(deps.tools, s, outputs)) for s in plan]
    verdicts = approve(
        planned,
        deps.tools,
        [
            policy(deps.settings, AGENT_NAME, deps.tools, t, deps.where, bool(past))
            for t, _ in planned
        ],
    )
    refused = {s["step_id"]: v.refused for s, v in zip(plan, verdicts, strict=True) if v.refused}
    plan = [  # an edited step runs with the arguments the user gave
        s if v.refused or v.args == args else {**s, "input": v.args}
        for s, (_, args), v in zip(plan, planned, verdicts, strict=True)
    ]
    run = await run_plan(
        plan,
        deps.tools,
        outputs=outputs,
        max_parallel=limit,
        round_no=state.get("replan_count", 0),
        on_record=stream,
        refused=refused,
    )
    return {"past_steps": [*past, *run.records], "plan": run.remaining}


async def replanner(state: PTEState, *, deps: Deps) -> PTEState:
    """After a failed step: one LLM call for a revised plan, within `max_replans`."""
    count = state.get("replan_count", 0)
    limit = deps.settings.pte.max_replans
    if count >= limit:
        return FailClosed(ErrorCode.REPLAN_LIMIT, f"{limit}회").update()
    emit(Planning(content="실패한 단계를 분석해 계획을 고치는 중입니다."))
    past = state.get("past_steps") or []
    done = successful_outputs(past)
    used = [r["step"]["step_id"] for r in past] + [s["step_id"] for s in state.get("plan") or []]
    first_id = max(used, default=0) + 1
    messages = [
        SystemMessage(
            prompts.REPLANNER_PROMPT.format(
                tool_manifest=state.get("tool_manifest") or "(없음)",
                first_id=first_id,
                done_refs=", ".join(f"step_{i}" for i in done) or prompts.NO_DONE_STEPS,
                current_datetime=state["current_datetime"],
            )
        ),
        HumanMessage(
            prompts.REPLANNER_INPUT.format(
                rewritten_query=state.get("rewritten_query") or state["input"],
                input=_clip(state["input"]),
                past_steps=_records_text(past),
                remaining="\n".join(map(_step_line, state.get("plan") or [])) or "(없음)",
            )
        ),
    ]
    try:
        plan = await compile_plan(
            deps.models("smart"), messages, state.get("available_tools") or [], done
        )
    except FailClosed as e:
        return {**e.update(), "replan_count": count + 1}
    emit(ToolSelected(content=f"재계획 {count + 1}회: {len(plan)}단계", tools=_tools_of(plan)))
    return {"plan": plan, "replan_count": count + 1}


#: The final answer's cap: a summary of the step results in a few sentences.
FINAL_MAX_TOKENS = 400


def _note(text: str) -> None:
    emit(Thinking(step="final_answer", content=text))


def _unrecovered_failures(past: list[dict[str, Any]]) -> list[str]:
    """The failed steps' messages, for steps that no later attempt made good (`honest.unrecovered`)."""
    return honest.unrecovered(
        [
            honest.Attempt(
                str(r["step"].get("tool")),
                r.get("status") == "success",
                str(r.get("output", "")),
                r["step"].get("step_id"),
            )
            for r in past
        ]
    )


def _succeeded(past: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in past if r.get("status") == "success"]


def _result_line(record: dict[str, Any]) -> str:
    """A step's output, after what the step was given when the output is a bare value
    ("5000000 * 0.035 * 2 → 350000", not "350000" alone)."""
    output = str(record["output"]).strip()
    given = record["step"].get("input")
    if isinstance(given, dict) and len(given) == 1:
        given = next(iter(given.values()))
    if isinstance(given, str) and given.strip() and len(output) <= 40 and "\n" not in output:
        return f"{given.strip()} → {output}"
    return output


async def final_answer(state: PTEState, *, deps: Deps) -> PTEState:
    """One streamed LLM call: tool results (FINAL_ANSWER_PROMPT) or plain conversation."""
    emit(Generating(content="답변을 작성하는 중입니다."))
    past = state.get("past_steps") or []
    outputs = successful_outputs(past)
    if past and not outputs:
        # Every step failed: say why, by rule — never an answer from the model's memory.
        result = honest.tools_failed([str(r.get("output", "")) for r in past])
        emit(Token(content=result))
        return {"result": result, "messages": _with_turn(state, result)}
    gate = None
    if past:
        system = prompts.FINAL_ANSWER_PROMPT.format(
            current_datetime=state["current_datetime"],
            input=_clip(state["input"]),
            rewritten_query=state.get("rewritten_query") or state["input"],
            results=_records_text(past),
            data_rule=DATA_RULE,
        )
        # Only figures the tools returned (or the request holds) reach the user.
        gate = honest.Gate(
            [*outputs.values(), state["input"]],
            step="final_answer",
            clock=state["current_datetime"],
        )
    else:
        system = prompts.GENERAL_CONVERSATION_PROMPT.format(
            current_datetime=state["current_datetime"], intent=state.get("intent") or "-"
        )
    messages = [
        SystemMessage(system),
        *_chat_history(state.get("messages") or []),
        HumanMessage(state["input"]),
    ]
    reply = await answer_in_kind(
        state["input"], deps.models("smart"), messages, FINAL_MAX_TOKENS, gate or honest.show, _note
    )
    result, note = reply.text, ""
    if gate is not None:
        gate.report()
        result = gate.settle(result, list(dict.fromkeys(_result_line(r) for r in _succeeded(past))))
        failed = _unrecovered_failures(past)
        if failed:  # what could not be checked is said by rule, whatever the answer says
            note = honest.partly_failed(failed)
    else:  # with nothing looked up, a figure the conversation does not hold is the model's memory
        note = honest.unchecked(result, [str(m.text) for m in messages])
    if note:
        emit(Token(content=note))
        result += note
    sources = step_sources(past)
    if sources:
        emit(SourcesEvent(content=sources))
    return {"result": result, "messages": _with_turn(state, result)}


async def error_handler(state: PTEState, *, deps: Deps) -> PTEState:
    """Fail closed: stop at once with the reason (the seed's line, then what it means in
    Korean, then each failed step's own message, which says what would fix it); no LLM call."""
    error = state.get("error") or "알 수 없는 오류"
    code = ErrorCode(state.get("error_code") or ErrorCode.INTERNAL)
    lines = [f"실행이 중단되었습니다: {error}"]
    if code in FAIL_CLOSED:
        lines.append(FAIL_CLOSED[code][1])
    failed = _unrecovered_failures(state.get("past_steps") or [])
    if failed:
        lines.append(honest.tools_failed(failed))
    result = "\n".join(lines)
    emit(ErrorEvent(code=code, content=result))
    return {"result": result, "messages": _with_turn(state, result)}
