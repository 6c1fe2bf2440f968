"""The orchestrator's nodes, one function per node, as docs/agents/tasks.md names them.

planner → orchestrator → qa_agent (the gate) / wait_user / confirm / worker → … → final_answer.
Waiting for the user is an `interrupt()` in `wait_user` or `confirm` (one per node, and the
only thing before it is deterministic), so resuming never repeats an LLM call.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from langchain_core.messages import HumanMessage, SystemMessage
from langchain_core.runnables import RunnableConfig
from langgraph.types import interrupt

from dure.agents.tasks import prompts
from dure.agents.tasks.deps import Deps
from dure.agents.tasks.detect import detect_intent
from dure.agents.tasks.extraction import llm_fill
from dure.agents.tasks.filling import apply_parse
from dure.agents.tasks.intents import get_intent, task_intents
from dure.agents.tasks.question import known_values, phrase_question
from dure.agents.tasks.schema import IntentSchema, slot_rows
from dure.agents.tasks.state import (
    AgentStep,
    ConversationState,
    StepStatus,
    TaskState,
    new_step,
)
from dure.agents.tasks.workers import WorkerInput, WorkerResult, get_worker, worker_description
from dure.events import Generating, Planning, Slots, Thinking, Token, emit
from dure.korean.confirm import confirmation
from dure.korean.slots.parser import parse_slots
from dure.korean.time import as_seoul
from dure.tags import ANSWER_TAG

log = logging.getLogger(__name__)

DONE = ("completed", "cancelled", "failed")


def _loaded(state: TaskState) -> tuple[ConversationState, IntentSchema, datetime]:
    conv = ConversationState.from_dict(state.get("conversation"))
    return conv, get_intent(conv.intent), as_seoul(datetime.fromisoformat(state["now"]))


def _with(
    steps: list[AgentStep],
    i: int,
    *,
    status: StepStatus | None = None,
    message: str | None = None,
    final_data: dict[str, Any] | None = None,
) -> list[AgentStep]:
    """`steps` with step `i` changed."""
    step = steps[i].copy()
    if status is not None:
        step["status"] = status
    if message is not None:
        step["message"] = message
    if final_data is not None:
        step["final_data"] = final_data
    return [*steps[:i], step, *steps[i + 1 :]]


def _current(state: TaskState) -> tuple[int, list[AgentStep]]:
    """The step the orchestrator chose, and every step (step nodes run only after a choice)."""
    i = state.get("current")
    if i is None:
        raise RuntimeError("a step node ran without a current step")
    return i, state["steps"]


async def _fill(
    conv: ConversationState,
    schema: IntentSchema,
    text: str,
    now: datetime,
    deps: Deps,
    expect: list[str],
) -> None:
    apply_parse(conv, parse_slots(text, schema, now, expect), schema, now)
    if (
        deps.settings.tasks.llm_extraction
        and schema.slots
        and not conv.is_required_slots_filled(now)
    ):
        await llm_fill(text, conv, schema, now, deps.models("fast"))


def plan_steps(schema: IntentSchema) -> list[AgentStep]:
    """qa (the gate) → [confirm] → worker(s) → qa again before the answer (docs/agents/tasks.md)."""
    steps = [new_step("qa_agent", "qa", "필수 정보 확인")]
    if schema.approval:
        steps.append(new_step("confirm", "confirm", "실행 전 확인"))
    steps += [new_step(name, "worker", worker_description(name)) for name in schema.workers]
    if schema.workers:
        steps.append(new_step("qa_agent", "qa", "결과 전달 전 확인"))
    return steps


async def planner(state: TaskState, *, deps: Deps) -> TaskState:
    """Detect the intent, start (or continue) its conversation state, parse, plan the steps."""
    text = state["user_input"]
    now = as_seoul(datetime.fromisoformat(state["now"]))
    previous = ConversationState.from_dict(state.get("conversation"))
    emit(Thinking(step="planner", content="요청을 분석하는 중입니다."))
    detection = await detect_intent(text, previous.intent or None, now, deps.models("fast"))
    schema = get_intent(detection.intent)
    if detection.how == "continue":
        # "4명으로 바꿔줘" after a finished task: the same task again, with the change.
        conv, conv.approvals = previous, {}
        conv.required_slots += [
            s for s in schema.required_for(text) if s not in conv.required_slots
        ]
        conv.optional_slots = [s for s in conv.optional_slots if s not in conv.required_slots]
    else:
        conv = ConversationState.for_intent(schema, text)
        if previous.intent in schema.carry_from:
            conv.slots.update(
                {k: v for k, v in previous.slots.items() if schema.spec(k) is not None}
            )
    await _fill(conv, schema, text, now, deps, expect=[])
    steps = plan_steps(schema)
    emit(Thinking(step="planner", content=f"작업: {schema.title} (판단: {detection.how})"))
    emit(Planning(content=[f"{s['agent_name']}: {s['description']}" for s in steps]))
    return {
        "conversation": conv.to_dict(),
        "steps": steps,
        "current": None,
        "question": "",
        "results": {},
        "cancelled": False,
        "answer": "",
        "sources": [],
        "last_message": text,
    }


async def orchestrator(state: TaskState, *, deps: Deps) -> TaskState:
    """The next step that is not done; completed steps are skipped (never run twice)."""
    steps = state.get("steps") or []
    for i, step in enumerate(steps):
        if step["status"] in DONE:
            continue
        skipped = f" · 완료된 단계 {i}개 건너뜀" if i else ""
        doing = "답변 대기" if step["status"] == "waiting_user" else "다음 단계"
        emit(Thinking(step="orchestrator", content=f"{doing}: {step['description']}{skipped}"))
        return {"current": i}
    return {"current": None}


async def qa_agent(state: TaskState, *, deps: Deps) -> TaskState:
    """The gate: required slots filled → COMPLETED with no LLM call; else one LLM-phrased question."""
    conv, schema, now = _loaded(state)
    i, steps = _current(state)
    missing = conv.get_missing_required_slots(now)  # rules, before any LLM call
    conv.pending_slots = missing
    emit(
        Slots(
            content=dict(conv.slots), missing=missing, rows=slot_rows(schema, conv.slots, missing)
        )
    )
    if not missing:
        emit(Thinking(step="qa_agent", content=prompts.GATE_MESSAGE))
        passed: dict[str, Any] = {
            "conversation_state": conv.to_dict(),
            "reason": "required_slots_filled",
            "agent_name": "qa_agent",
        }
        return {
            "steps": _with(
                steps, i, status="completed", message=prompts.GATE_MESSAGE, final_data=passed
            ),
            "conversation": conv.to_dict(),
            "question": "",
        }
    labels = ", ".join(s.label for s in (schema.spec(n) for n in missing) if s)
    emit(Thinking(step="qa_agent", content=f"빠진 정보({labels})를 묻는 질문을 만드는 중입니다."))
    q = await phrase_question(
        conv, schema, missing, deps.models("fast"), now, state.get("last_message", "")
    )
    final: dict[str, Any] = {
        "pattern": q.pattern,
        "source": q.source,
        "missing": missing,
        "problem": q.problem,
    }
    return {
        "steps": _with(steps, i, status="waiting_user", message=q.text, final_data=final),
        "conversation": conv.to_dict(),
        "question": q.text,
    }


def _cancelled(steps: list[AgentStep]) -> TaskState:
    kept: list[AgentStep] = []
    for step in steps:
        kept.append(step if step["status"] in DONE else {**step, "status": "cancelled"})
    return {"steps": kept, "cancelled": True, "question": ""}


async def wait_user(state: TaskState, *, deps: Deps) -> TaskState:
    """Wait for the reply (interrupt), then parse it into the slots; the gate checks again."""
    i, steps = _current(state)
    asked = steps[i]["final_data"]
    reply = interrupt(
        {
            "question": state["question"],
            "pattern": asked.get("pattern", "ASK"),
            "slots": state["conversation"]["slots"],
            "missing": asked.get("missing", []),
        }
    )
    text, now = str(reply), deps.now()
    if confirmation(text) == "cancel":
        return _cancelled(steps)
    conv, schema, _ = _loaded(state)
    await _fill(conv, schema, text, now, deps, expect=list(asked.get("missing", [])))
    return {
        "steps": _with(steps, i, status="pending"),
        "conversation": conv.to_dict(),
        "now": now.isoformat(),
        "last_message": text,
        "question": "",
    }


def confirm_summary(conv: ConversationState, schema: IntentSchema, now: datetime) -> str:
    """`회의실 예약: 3월 6일(목) 오후 2시, 6명, 1시간.`"""
    parts = [phrase for _, phrase in known_values(conv, schema, now)]
    for spec in schema.slots:
        if spec.name not in conv.slots and spec.default is not None:
            parts.append(f"{spec.label} {spec.display(spec.default)}(기본값)")
    return f"{schema.title}: {', '.join(parts)}."


async def confirm(state: TaskState, *, deps: Deps) -> TaskState:
    """CONFIRM before acting (rule-based, no LLM): yes → approved, no → cancelled, a change → re-check."""
    conv, schema, now = _loaded(state)
    i, steps = _current(state)
    key = schema.approval or "approval"
    if conv.approvals.get(key):
        return {"steps": _with(steps, i, status="completed", message="승인됨")}
    question = schema.confirm_question.format(summary=confirm_summary(conv, schema, now))
    if steps[i]["final_data"].get("asked"):
        question = f"{prompts.CONFIRM_AGAIN} {question}"
    text = str(
        interrupt({"question": question, "pattern": "CONFIRM", "slots": conv.slots, "missing": []})
    )
    now = deps.now()
    before = dict(conv.slots)
    apply_parse(conv, parse_slots(text, schema, now), schema, now)
    if conv.slots != before:  # new conditions: the gate checks them, then we confirm again
        reopened = steps
        for j, step in enumerate(steps[:i]):
            if step["kind"] == "qa":
                reopened = _with(reopened, j, status="pending")
        return {
            "steps": reopened,
            "conversation": conv.to_dict(),
            "now": now.isoformat(),
            "last_message": text,
        }
    reply = confirmation(text)
    if reply in ("cancel", "no"):
        return {**_cancelled(steps), "answer": schema.declined}
    if reply == "yes":
        conv.approvals[key] = True
        emit(Thinking(step="confirm", content="확인했습니다. 진행합니다."))
        return {
            "steps": _with(steps, i, status="completed", message="승인됨"),
            "conversation": conv.to_dict(),
        }
    return {"steps": _with(steps, i, final_data={"asked": True}), "last_message": text}


async def worker(state: TaskState, config: RunnableConfig, *, deps: Deps) -> TaskState:
    """Run the step's worker agent with the filled slots and earlier workers' results."""
    conv, _, now = _loaded(state)
    i, steps = _current(state)
    name = steps[i]["agent_name"]
    emit(Thinking(step=name, content=f"{steps[i]['description']} 중입니다."))
    earlier = {k: WorkerResult.model_validate(v) for k, v in (state.get("results") or {}).items()}
    thread = str((config.get("configurable") or {}).get("thread_id", ""))
    status: StepStatus
    try:
        inp = WorkerInput(conv, now, deps.settings, thread, earlier, deps.owner, deps.models)
        result = await get_worker(name)(inp)
        status = "completed"
    except Exception:  # a worker's failure becomes its result; the answer says so
        log.exception("worker %s failed", name)
        result, status = (
            WorkerResult(ok=False, summary="작업 중 문제가 생겨 결과를 만들지 못했어요."),
            "failed",
        )
    emit(Thinking(step=name, content=" ".join(result.summary.split())))
    return {
        "steps": _with(
            steps, i, status=status, message=result.summary, final_data={"ok": result.ok}
        ),
        "results": {**(state.get("results") or {}), name: result.model_dump(mode="json")},
    }


async def final_answer(state: TaskState, *, deps: Deps) -> TaskState:
    """The answer: the conditions and the workers' results, by rule; a `smart`-model reply only
    when no worker ran (the `general` intent).

    No model phrases the results: the local model, asked to, gave one restaurant another's dish
    and repeated its own instructions to the user (measured), and a call costs 30–60 s.
    """
    emit(Generating(content="답변을 작성하는 중입니다."))
    if state.get("cancelled"):
        return {"answer": state.get("answer") or prompts.CANCELLED, "sources": []}
    conv, schema, now = _loaded(state)
    if not schema.workers:
        tasks = ", ".join(i.title for i in task_intents())
        messages = [
            SystemMessage(prompts.GENERAL_SYSTEM.format(tasks=tasks)),
            HumanMessage(state["user_input"]),
        ]
        reply = await deps.models("smart").ainvoke(
            messages, config=RunnableConfig(tags=[ANSWER_TAG])
        )
        return {"answer": reply.text, "sources": []}
    results = [WorkerResult.model_validate(r) for r in (state.get("results") or {}).values()]
    conditions = ", ".join(phrase for _, phrase in known_values(conv, schema, now))
    notices = dict.fromkeys(n for r in results for n in r.notices)
    answer = "\n\n".join(
        [
            f"{schema.title} — {conditions}" if conditions else schema.title,
            "\n".join(r.summary for r in results),
            *notices,
        ]
    )
    emit(Token(content=answer))
    sources = [s.model_dump(mode="json") for r in results for s in r.sources]
    return {"answer": answer, "sources": sources}
