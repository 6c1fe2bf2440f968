"""The contract agent's nodes, one function each, named as docs/agents/contract.md names them.

scope_validator → check_previous_context → planner → (executor | parallel_executor) →
evaluator → … → respond. Every node reads the state, emits its events and returns only the
fields it changes. Model replies that are not the JSON asked for never crash a turn: they set
`error`, and respond ends the turn with a polite Korean message (fail closed).
"""

from __future__ import annotations

import asyncio

from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from dure.agents.contract import prompts, rules
from dure.agents.contract.bookkeeping import absorb, model_tool_calls, select_tools
from dure.agents.contract.context import answer_messages, planner_messages, previous_turn_from
from dure.agents.contract.deps import Deps
from dure.agents.contract.grounding import missing_quotes, settled
from dure.agents.contract.state import ContractState, ToolCall, last_evaluation
from dure.errors import ErrorCode
from dure.events import (
    ErrorEvent,
    EvaluationResult,
    Generating,
    Planning,
    SourcesEvent,
    Thinking,
    Token,
    ToolResultEvent,
    ToolSelected,
    emit,
)
from dure.honest import Gate
from dure.korean.decision import decision_event
from dure.korean.followup import decide_followup, points_back
from dure.korean.scope import decide_scope
from dure.korean.text import korean_sentence
from dure.llm import StructuredOutputError, agenerate_structured
from dure.llm.answer import answer_in_kind, stream_answer
from dure.llm.constrained import ToolReplyError
from dure.sources import Source, unique_sources
from dure.tools import ToolRegistry, ToolResult

__all__ = [
    "check_previous_context",
    "evaluator",
    "executor",
    "parallel_executor",
    "planner",
    "respond",
    "scope_validator",
]


#: The planner's reply is a few tool calls; a model that starts to answer instead is cut here.
PLANNER_MAX_TOKENS = 256
#: An answer of five sentences is ≈ 250 tokens; a rambling one is cut here.
RESPOND_MAX_TOKENS = 320


class Judgement(BaseModel):
    """The evaluator's JSON."""

    is_sufficient: bool
    reasoning: str = Field("", max_length=120, pattern=korean_sentence(120))  # one sentence
    missing_info: str | None = Field(None, max_length=120, pattern=korean_sentence(120))


def _note(text: str) -> None:
    emit(Thinking(step="respond", content=text))


def _finish(text: str, error_code: ErrorCode | None = None) -> ContractState:
    """End the turn with a fixed Korean message (refusal or fail-closed stop), no model call."""
    if error_code:
        emit(ErrorEvent(code=error_code, content=text))
    emit(Token(content=text))
    return {"final_response": text, "sources": [], "messages": [AIMessage(text)]}


# ---------------------------------------------------------------- [1] ScopeValidator


_KIND_LABEL = {
    "contract": "계약서 질문",
    "smalltalk": "인사·잡담",
    "out_of_scope": "계약서와 무관한 질문",
}


async def scope_validator(state: ContractState, *, deps: Deps) -> ContractState:
    """Entry: contract binding, scope (rules, then the fast model) and previous-turn detection."""
    emit(Thinking(step="scope_validator", content="질문이 계약서에 관한 것인지 확인하고 있습니다."))
    # An explicit previous turn (given with the input) wins over the checkpoint's.
    previous = state.get("previous_turn") or previous_turn_from(state.get("messages", []))
    if not state.get("contract_id"):
        return {"previous_turn": previous, **_finish(prompts.NO_CONTRACT, ErrorCode.NO_CONTRACT)}
    for bound, requested in (
        (state.get("contract_id"), state.get("requested_contract_id")),
        (state.get("standard_contract_id"), state.get("requested_standard_id")),
    ):
        if bound and requested and requested != bound:
            contract = deps.contract(bound)
            name = (contract.title if contract else None) or bound
            text = prompts.CONTRACT_CONFLICT.format(bound=name)
            return {"previous_turn": previous, **_finish(text, ErrorCode.CONTRACT_CONFLICT)}
    contract = deps.contract(state["contract_id"])
    titles = [a.title for a in contract.articles if a.title] if contract else []
    try:
        result = await decide_scope(state["user_message"], deps.models, bool(previous), titles)
    except StructuredOutputError:
        return {
            "previous_turn": previous,
            "error": ErrorCode.STRUCTURED_OUTPUT,
            **_finish(prompts.STRUCTURED_ERROR, ErrorCode.STRUCTURED_OUTPUT),
        }
    decision = {
        "node": "scope_validator",
        "kind": result.kind,
        "by": result.decided_by,
        "reason": result.reason,
    }
    verdict = _KIND_LABEL.get(result.kind, result.kind)
    emit(decision_event("scope_validator", result.decided_by, verdict, result.reason))
    if not result.in_scope:
        return {
            "previous_turn": previous,
            "question_kind": result.kind,
            "decision_log": [decision],
            **_finish(prompts.REFUSAL),
        }
    return {"previous_turn": previous, "question_kind": result.kind, "decision_log": [decision]}


# ---------------------------------------------------------------- [2] check_previous_context


async def check_previous_context(state: ContractState, *, deps: Deps) -> ContractState:
    """Does the question need the previous turn? Rules first, then one bounded model call."""
    previous = state.get("previous_turn") or []
    try:
        d = await decide_followup(state["user_message"], previous, deps.models)
    except StructuredOutputError:
        return {"need_previous_context": False, "error": ErrorCode.STRUCTURED_OUTPUT}
    entry = {
        "node": "check_previous_context",
        "need_previous_context": d.refers_to_previous,
        "by": d.decided_by,
        "reasoning": d.reason,
    }
    if previous:
        verdict = "이전 대화 필요" if d.refers_to_previous else "이전 대화 불필요"
        emit(decision_event("check_previous_context", d.decided_by, verdict, d.reason))
    return {
        "need_previous_context": d.refers_to_previous,
        "previous_pointed": d.refers_to_previous
        and d.decided_by == "rule"
        and points_back(state["user_message"], previous),
        "decision_log": [*state.get("decision_log", []), entry],
    }


# ---------------------------------------------------------------- [3] planner


async def planner(state: ContractState, *, deps: Deps) -> ContractState:
    """Choose the next tools: rule suggestion (first iteration only), then tool calling (auto)."""
    iteration = state.get("iteration_count", 0) + 1
    emit(Planning(content=f"탐색 계획을 세우고 있습니다 ({iteration}회차)."))
    if state.get("error"):
        return {"next_tools": [], "all_tools_skipped": False}
    question = state["user_message"]
    registry = deps.registry(state)
    contract = deps.contract(state.get("contract_id"))
    first = iteration == 1
    candidates: list[ToolCall] = []
    ask_model = not first
    if first and state.get("question_kind") != "smalltalk":
        # The first round is the rules' (no model call): the named articles, and a search of
        # the question as asked when it asks more than they hold. A follow-up a rule saw point
        # back that names nothing is answered from the previous turn, with no tool (seed 000's
        # example flow); one the bank or model judged is searched too: "납품이 5일 늦으면 얼마
        # 물어내야 돼?" after a question on 저작권 (bank, 0.54) was answered from 저작권.
        pointed = bool(state.get("previous_pointed"))
        candidates = rules.first_round(question, contract, pointed)
        if not candidates:
            emit(Thinking(step="planner", content="직전 대화를 바탕으로 답합니다."))
    if ask_model:
        # tool_choice="auto" on every iteration: the model may choose nothing, and a rule
        # suggestion is only ever a hint in the prompt, never a forced choice.
        model = deps.models("smart").bind_tools(
            registry.schemas(), tool_choice="auto", max_tokens=PLANNER_MAX_TOKENS
        )
        messages = planner_messages(state, registry.manifest(), contract)
        try:
            candidates += model_tool_calls(await model.ainvoke(messages))
        except ToolReplyError:  # arguments that looped or were cut off: the model chose nothing
            emit(Thinking(step="planner", content="모델의 도구 선택이 끝맺어지지 않아 버립니다."))
    next_tools, skipped, unknown = select_tools(candidates, state, registry)
    all_skipped = bool(skipped) and not next_tools
    entry = {
        "node": "planner",
        "iteration": iteration,
        "asked_model": ask_model,
        "selected": [t["signature"] for t in next_tools],
        "skipped_duplicates": skipped,
        "unknown_tools": unknown,
    }
    if next_tools:
        emit(
            ToolSelected(
                content=f"도구 {len(next_tools)}개를 실행합니다.",
                tools=[{"name": t["name"], "args": t["args"]} for t in next_tools],
            )
        )
    elif all_skipped:
        emit(Thinking(step="planner", content="이미 실행한 도구뿐이라 바로 평가합니다."))
    return {
        "next_tools": next_tools,
        "all_tools_skipped": all_skipped,
        "decision_log": [*state.get("decision_log", []), entry],
    }


# ---------------------------------------------------------------- [4] executors


async def _run(registry: ToolRegistry, call: ToolCall) -> ToolResult:
    result = await registry.run(call["name"], call["args"])
    emit(
        ToolResultEvent(
            tool=call["name"], ok=result.ok, content=result.content[:200].replace("\n", " ")
        )
    )
    return result


async def executor(state: ContractState, *, deps: Deps) -> ContractState:
    """Run the selected tools one after another."""
    registry = deps.registry(state)
    results = [(call, await _run(registry, call)) for call in state.get("next_tools", [])]
    return absorb(state, results)


async def parallel_executor(state: ContractState, *, deps: Deps) -> ContractState:
    """Run independent tools at once, at most `contract.max_parallel_tools` at a time."""
    registry = deps.registry(state)
    gate = asyncio.Semaphore(max(1, deps.settings.contract.max_parallel_tools))

    async def bounded(call: ToolCall) -> ToolResult:
        async with gate:
            return await _run(registry, call)

    calls = state.get("next_tools", [])
    results = await asyncio.gather(*(bounded(c) for c in calls))
    return absorb(state, list(zip(calls, results, strict=True)))


# ---------------------------------------------------------------- [5] evaluator


async def evaluator(state: ContractState, *, deps: Deps) -> ContractState:
    """Is the collected information sufficient? Limit, no progress, rule, then the smart model."""
    count = state.get("iteration_count", 0) + 1
    limit = deps.settings.contract.max_iterations
    log = list(state.get("decision_log", []))
    base = {"node": "evaluator", "iteration": count}
    if state.get("error"):
        entry = {**base, "action": "finish", "by": "error", "is_sufficient": False}
        return {"iteration_count": count, "decision_log": [*log, entry]}
    if count >= limit:
        note = prompts.MAX_ITERATIONS_NOTE.format(n=limit)
        emit(EvaluationResult(is_sufficient=False, content=note))
        entry = {
            **base,
            "action": "finish",
            "by": "limit",
            "is_sufficient": False,
            "reasoning": note,
        }
        return {"iteration_count": count, "decision_log": [*log, entry]}
    if state.get("all_tools_skipped") and last_evaluation(state):
        # The planner found nothing new since the last judgement: asking again would only
        # repeat it, so the loop ends here with what was collected.
        emit(EvaluationResult(is_sufficient=False, content=prompts.NO_PROGRESS_NOTE))
        entry = {**base, "action": "finish", "by": "no_progress", "is_sufficient": False}
        return {"iteration_count": count, "decision_log": [*log, entry]}
    # A clear lead counts only in a hybrid (z-score fused) search.
    hybrid = getattr(deps.library, "dense", False) and deps.settings.search.fusion == "zscore"
    margin = deps.settings.contract.sufficient_margin if hybrid else None
    found = settled(state, deps.contract(state.get("contract_id")), margin, first=count == 1)
    if found is not None:
        reason, focus = found
        emit(EvaluationResult(is_sufficient=True, content=reason))
        entry = {
            **base,
            "action": "finish",
            "by": "rule",
            "is_sufficient": True,
            "reasoning": reason,
        }
        return {
            "iteration_count": count,
            "missing_info": None,
            "focus_articles": focus,
            "decision_log": [*log, entry],
        }
    task = prompts.EVALUATOR_TASK.format(
        explored=", ".join(state.get("explored_articles", [])) or "(없음)",
        unexplored=", ".join(state.get("unexplored_articles", [])) or "(없음)",
    )
    messages = answer_messages(state, task)
    try:
        verdict = await agenerate_structured(deps.models("smart"), messages, Judgement)
    except StructuredOutputError:
        entry = {**base, "action": "finish", "by": "error", "is_sufficient": False}
        return {
            "iteration_count": count,
            "error": ErrorCode.STRUCTURED_OUTPUT,
            "decision_log": [*log, entry],
        }
    missing = None if verdict.is_sufficient else (verdict.missing_info or None)
    emit(
        EvaluationResult(
            is_sufficient=verdict.is_sufficient, missing_info=missing, content=verdict.reasoning
        )
    )
    entry = {
        **base,
        "action": "finish" if verdict.is_sufficient else "continue",
        "by": "llm",
        "is_sufficient": verdict.is_sufficient,
        "reasoning": verdict.reasoning,
        "missing_info": missing,
    }
    return {"iteration_count": count, "missing_info": missing, "decision_log": [*log, entry]}


# ---------------------------------------------------------------- [6] respond


async def respond(state: ContractState, *, deps: Deps) -> ContractState:
    """Write the answer from the collected information (streamed), then list its sources."""
    if state.get("error"):
        return _finish(prompts.STRUCTURED_ERROR, state["error"])
    emit(Generating(content="답변을 작성하고 있습니다."))
    question = state["user_message"]
    collected = list(state.get("collected_info", []))
    if state.get("need_previous_context") and state.get("previous_turn"):
        earlier = state["previous_turn"][-1].get("sources", [])
        collected.append({"ok": True, "sources": earlier})
    if state.get("question_kind") == "smalltalk" and not state.get("collected_info"):
        messages = [SystemMessage(prompts.SMALLTALK_SYSTEM), HumanMessage(question)]
    else:
        task = prompts.RESPOND_TASK
        if last_evaluation(state).get("by") == "limit":
            task += prompts.LIMIT_REACHED_TASK
        messages = answer_messages(state, task)
    retrieved = rules.retrieved_sources(collected)
    if retrieved:
        # What the answer rests on is on screen before the model starts writing.
        emit(SourcesEvent(content=retrieved, stage="retrieved"))
    gate = None
    if retrieved:
        # Only figures the sources, the question or the previous turn hold reach the user.
        previous = [str(t["content"]) for t in state.get("previous_turn") or []]
        gate = Gate(
            [s.text for s in retrieved] + [question] + previous,
            question=question,
            instructions=prompts.RESPOND_TASK,
            labels=prompts.PROMPT_LABELS,
            articles={
                s.article_no: s.text for s in retrieved if s.kind == "contract" and s.article_no
            },
        )
    model = deps.models("smart")
    if gate is None:
        answer = await stream_answer(model, messages, RESPOND_MAX_TOKENS)
    else:
        answer = (
            await answer_in_kind(question, model, messages, RESPOND_MAX_TOKENS, gate, _note)
        ).text
        top = retrieved[0]
        only_articles = not answer.strip() and bool(top.article_no)
        if only_articles:  # nothing passed: the articles' own words (two when too close to call)
            margin = deps.settings.contract.sufficient_margin
            leading = rules.leading_articles(collected, margin) or [str(top.article_no)]
            answer = prompts.ONLY_THE_ARTICLE.format(article="와 ".join(leading))
            emit(Token(content=answer))
    sources: list[Source] = rules.cited_sources(answer, collected) if collected else []
    if gate is not None:
        gate.report()
        named = rules.named_sources(question, retrieved)
        first = rules.leading_source(collected, retrieved)
        quotes = missing_quotes(
            question, answer, sources, named, deps.embedder(), only_articles, first
        )
        if quotes:  # the cited article's own words the question needs, verbatim
            emit(Token(content=quotes))
            answer += quotes
            quoted = [*named, first] if first else named
            sources = unique_sources(
                sources + [s for s in quoted if f"{s.article_no}: “" in quotes]
            )
    emit(SourcesEvent(content=sources))
    dumped = [s.model_dump() for s in sources]
    return {
        "final_response": answer,
        "sources": dumped,
        "messages": [AIMessage(answer, additional_kwargs={"sources": dumped})],
    }
