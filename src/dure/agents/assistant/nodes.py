"""The assistant's nodes, one function per node: router, rag, memory, agent, tools.

See docs/agents/assistant.md for the graph, the state and the LLM-call table.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)

from dure import honest
from dure.agents.assistant.deps import AGENT_NAME, Deps
from dure.agents.assistant.prompts import (
    CONTEXT_HEADER,
    CONTEXT_RULE,
    NO_DOCUMENTS,
    SUMMARY_HEADER,
    SYSTEM_PROMPT,
)
from dure.agents.assistant.state import AssistantState
from dure.errors import ErrorCode
from dure.events import (
    ErrorEvent,
    SourcesEvent,
    Thinking,
    Token,
    ToolResultEvent,
    ToolSelected,
    emit,
)
from dure.focus import focus
from dure.korean.codes import absent_answer
from dure.korean.decision import decision_event
from dure.korean.route import decide_route, names_a_tool, tool_hint
from dure.llm.answer import answer_in_kind
from dure.memory import compact, format_summary_for_prompt
from dure.quotes import document_quote
from dure.sources import Source, unique_sources
from dure.tools.approval import approve, policy
from dure.tools.base import ToolResult
from dure.tools.documents import format_passages, search_collection
from dure.untrusted import as_data
from dure.usage import BudgetExceeded

log = logging.getLogger(__name__)

#: How a failed tool's message starts, as the model reads it.
TOOL_ERROR_PREFIX = "오류: "
#: Longest tool output handed back to the model (the rest is cut, and said to be).
MAX_TOOL_CHARS = 6_000
#: The agent call's limit: a tool call's JSON, or an answer of a few paragraphs.
AGENT_MAX_TOKENS = 512


def build_system_prompt(summary: str | None, context: str | None) -> str:
    """The system message: base prompt, then [이전 대화 요약], then the passages and the rule for
    answering from it."""
    parts = [SYSTEM_PROMPT]
    formatted = format_summary_for_prompt(summary)
    if formatted:
        parts.append(f"{SUMMARY_HEADER}\n{formatted}")
    if context:
        parts += [f"{CONTEXT_HEADER}\n{context}", CONTEXT_RULE]
    return "\n\n".join(parts)


def last_question(messages: Sequence[BaseMessage]) -> str:
    """The text of the latest user message."""
    for m in reversed(messages):
        if isinstance(m, HumanMessage):
            return m.text.strip()
    return ""


def tool_rounds(messages: Sequence[BaseMessage]) -> int:
    """How many times the agent called tools since the latest user message."""
    rounds = 0
    for m in reversed(messages):
        if isinstance(m, HumanMessage):
            break
        if isinstance(m, AIMessage) and m.tool_calls:
            rounds += 1
    return rounds


def _clip(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n… (결과가 길어 {limit:,}자까지만 전달합니다)"


def _as_source(hit: Any) -> Source:
    if isinstance(hit, Source):
        return hit
    return hit.to_source()


async def router(state: AssistantState, *, deps: Deps) -> AssistantState:
    """rag vs agent: a rule when it is sure, else one bounded LLM call."""
    messages = state.get("messages", [])
    question = last_question(messages)
    collection = await asyncio.to_thread(deps.collection)
    has_documents = collection is not None or "retriever" in deps.options
    found: list[Source] = []  # what the route's document check searched, if it did

    async def passages(text: str) -> list[str]:
        found[:] = await _passages(deps, text, collection)
        return [s.text for s in found]

    d = await decide_route(
        question,
        messages[:-1],
        deps.models,
        has_documents=has_documents,
        collection=collection,
        search=passages if has_documents else None,
    )
    emit(decision_event("router", d.decided_by, d.route, d.reason))
    if d.route == "rag" and found:  # `rag` reads them instead of searching again
        return {"next_action": "rag", "sources": [s.model_dump() for s in found]}
    # A question about documents with none registered gets an honest answer, not a guess.
    return {"next_action": "no_documents" if d.route == "rag" and not has_documents else d.route}


async def rag(state: AssistantState, *, deps: Deps) -> AssistantState:
    """Search the collection for the question (unless the router has); passages into `context`,
    with sources."""
    question = last_question(state.get("messages", []))
    collection = await asyncio.to_thread(deps.collection)
    emit(Thinking(step="rag", content=f"문서 검색 중: {collection or '검색기'}"))
    searched = [Source.model_validate(s) for s in state.get("sources") or []]
    try:
        sources = searched or await _search(deps, question, collection)
    except Exception as e:  # a broken collection must not end the turn
        log.warning("retrieval failed: %s", e)
        message = f"문서 검색에 실패했습니다: {e}"
        emit(ErrorEvent(code=ErrorCode.RETRIEVAL, content=message))
        return {"context": f"({message})", "sources": []}
    emit(Thinking(step="rag", content=f"관련 문서 {len(sources)}건을 찾았습니다"))
    if sources:  # the prompt carries the sentences nearest the question; `sources` stay whole
        context = format_passages(await asyncio.to_thread(focus, question, sources, deps.settings))
    else:
        context = NO_DOCUMENTS
    return {"context": context, "sources": [s.model_dump() for s in sources]}


async def _passages(deps: Deps, question: str, name: str | None) -> list[Source]:
    """What `_search` finds (none when it fails: the route then stays as voted)."""
    try:
        return await _search(deps, question, name)
    except Exception as e:
        log.warning("retrieval for the route failed: %s", e)
        return []


async def _search(deps: Deps, question: str, name: str | None) -> list[Source]:
    """Top-k passages from `options["retriever"]` (tests) or the collection `name`."""
    top_k = deps.settings.search.top_k
    retriever = deps.options.get("retriever")
    if retriever is not None:
        found = await asyncio.to_thread(retriever.search, question, top_k)
        if inspect.isawaitable(found):
            found = await found
        return unique_sources([_as_source(h) for h in found])
    if name is None:
        return []
    return await search_collection(name, question, deps.settings)


async def memory(state: AssistantState, *, deps: Deps) -> AssistantState:
    """Summarise the older messages when the window is full (docs/agents/assistant.md)."""
    messages = state.get("messages", [])
    try:
        result = await compact(
            deps.models("fast"),
            messages,
            state.get("summary"),
            max_messages=deps.settings.assistant.max_messages,
            keep_recent=deps.settings.assistant.keep_recent,
            max_summaries=deps.settings.assistant.max_summaries,
        )
    except BudgetExceeded:
        raise
    except Exception as e:  # keep the messages: a failed summary must not lose them
        log.warning("summarising failed, window kept: %s", e)
        return {}
    if result is None:
        return {}
    emit(
        Thinking(
            step="memory",
            content=f"이전 대화 {len(result.removed)}개를 요약했습니다 (최근 {result.kept}개 유지)",
        )
    )
    return {"summary": result.summary, "messages": result.removals()}


async def agent(state: AssistantState, *, deps: Deps) -> AssistantState:
    """The conversation model with the tools bound; decides to answer or to call tools."""
    messages = state.get("messages", [])
    if state.get("next_action") == "no_documents":
        return _honest(honest.NO_DOCUMENTS)
    failures = failed_turn(messages)
    if failures:
        return _honest(honest.tools_failed(failures))
    question = last_question(messages)
    found = unique_sources([Source.model_validate(s) for s in state.get("sources") or []])
    documents = [s.text for s in found if s.kind == "document"]

    async def search(text: str) -> list[str]:
        return [
            s.text for s in await _passages(deps, text, await asyncio.to_thread(deps.collection))
        ]

    if state.get("context") and (absent := await absent_answer(question, documents, search)):
        return _honest(absent)  # a code the documents do not list, though they list its kind
    model = deps.models("smart")
    choice = _tool_choice(deps, state)
    bound = model.bind_tools(deps.tools.schemas(), tool_choice=choice)
    prompt = [
        SystemMessage(build_system_prompt(state.get("summary"), state.get("context"))),
        *messages,
    ]
    hinted = f" (도구 지정: {choice})" if choice not in (None, "none") else ""
    emit(Thinking(step="agent", content=f"답변을 준비하는 중{hinted}"))
    # Once documents or tools have spoken, only figures something the model read holds (the
    # prompt: passages, tool results, the conversation) reach the user, and a figure from the
    # documents only from a line about what its sentence says.
    gate = (
        honest.Gate(
            [str(m.text) for m in prompt],
            step="agent",
            passages=documents,
            said=[str(m.text) for m in messages if isinstance(m, HumanMessage)],
        )
        if _outside_text(state)
        else None
    )
    reply = await answer_in_kind(
        question, bound, prompt, AGENT_MAX_TOKENS, gate or honest.show, _note
    )
    if gate is not None:
        gate.report()
        reply.text = gate.settle(reply.text, _outside_results(state))
    if reply.tool_calls and choice != "none":
        emit(
            ToolSelected(
                content=", ".join(c["name"] for c in reply.tool_calls),
                tools=[{"name": c["name"], "args": c["args"]} for c in reply.tool_calls],
            )
        )
        return {
            "messages": [AIMessage(reply.text, tool_calls=reply.tool_calls, id=reply.id)],
            "next_action": "tools",
        }
    # Every failed call is named (a round that failed whole ended the turn above): calls are not
    # labelled with what they were for, so no later call can be said to have made one good.
    failed = [a.message for a in _turn_attempts(messages) if not a.ok]
    if failed:  # what could not be checked is said by rule, whatever the answer says
        note = honest.partly_failed(failed)
    else:  # with nothing looked up, a figure the conversation does not hold is the model's memory
        note = "" if gate else honest.unchecked(reply.text, [str(m.text) for m in prompt])
    if note:
        emit(Token(content=note))
        reply.text += note
    sources = honest.cited(reply.text, found) if found else []
    quoted = document_quote(question, reply.text, found, deps.settings)
    if quoted:  # the documents' own words beside what the model made of them
        emit(Token(content=quoted[0]))
        reply.text += quoted[0]
        sources = unique_sources([*sources, quoted[1]])
    if sources:
        emit(SourcesEvent(content=sources))
    return {
        "messages": [AIMessage(reply.text, id=reply.id)],
        "sources": [s.model_dump() for s in sources],
        "next_action": "end",
    }


def _note(text: str) -> None:
    emit(Thinking(step="agent", content=text))


def _turn_attempts(messages: Sequence[BaseMessage]) -> list[honest.Attempt]:
    """The tool calls of the current turn, in order."""
    results: list[ToolMessage] = []
    for m in reversed(messages):
        if isinstance(m, HumanMessage):
            break
        if isinstance(m, ToolMessage):
            results.append(m)
    return [
        honest.Attempt(str(r.name), r.status != "error", r.text.removeprefix(TOOL_ERROR_PREFIX))
        for r in reversed(results)
    ]


def failed_turn(messages: Sequence[BaseMessage]) -> list[str]:
    """The reasons, when the turn ran tools and every one failed (else empty)."""
    attempts = _turn_attempts(messages)
    if not attempts or any(a.ok for a in attempts):
        return []
    return [a.message for a in attempts]


def _honest(text: str) -> AssistantState:
    """End the turn with a rule-written answer (`dure.honest`), no model call."""
    emit(Token(content=text))
    return {"messages": [AIMessage(text)], "next_action": "end"}


def _tool_choice(deps: Deps, state: AssistantState) -> str | None:
    """`none` after `max_tool_rounds` rounds (answer with what you have); the name of the
    plainly needed tool on the turn's first call (see `tool_hint`: a name forces that tool,
    as LangChain's `bind_tools` has it); `none` when passages were found for a question that
    names no tool's job (the documents answer it: offered tools, the local model called the
    clock for "신청은 언제까지 해야 돼?" and answered with today's date); else None, the model's
    choice."""
    messages = state.get("messages", [])
    rounds = tool_rounds(messages)
    if rounds >= deps.settings.assistant.max_tool_rounds:
        return "none"
    question = last_question(messages)
    hint = tool_hint(question) if rounds == 0 else None
    if hint is not None and hint in deps.tools:
        return hint
    if rounds == 0 and state.get("sources") and not names_a_tool(question):
        return "none"
    return None


def _outside_results(state: AssistantState) -> list[str]:
    """This turn's searched passages and tool results, as the model read them."""
    results: list[str] = []
    for message in reversed(state.get("messages", [])):
        if isinstance(message, HumanMessage):
            break
        if isinstance(message, ToolMessage) and message.status != "error":
            results.insert(0, str(message.text))
    context = state.get("context")
    return [context, *results] if context else results


def _outside_text(state: AssistantState) -> bool:
    """Whether this turn already carries text from documents or tools (which could be steering
    the model): searched passages, or a tool's result since the user's message."""
    if state.get("context"):
        return True
    for message in reversed(state.get("messages", [])):
        if isinstance(message, HumanMessage):
            return False
        if isinstance(message, ToolMessage):
            return True
    return False


async def tools(state: AssistantState, *, deps: Deps) -> AssistantState:
    """Run the tool calls of the last AI message once approved (`dure.tools.approval`);
    failures and refusals come back as tool messages."""
    last = state["messages"][-1]
    calls = last.tool_calls if isinstance(last, AIMessage) else []
    where, outside = deps.where, _outside_text(state)
    verdicts = approve(
        [(c["name"], c["args"]) for c in calls],
        deps.tools,
        [policy(deps.settings, AGENT_NAME, deps.tools, c["name"], where, outside) for c in calls],
    )
    results = await asyncio.gather(
        *(
            deps.tools.run(v.name, v.args) if v.refused is None else _refused(v.refused)
            for v in verdicts
        )
    )
    replies: list[BaseMessage] = []
    sources = list(state.get("sources") or [])
    for call, result in zip(calls, results, strict=True):
        emit(ToolResultEvent(tool=call["name"], ok=result.ok, content=_clip(result.content, 500)))
        text = (
            _as_read(deps, call["name"], result.content)
            if result.ok
            else TOOL_ERROR_PREFIX + result.content
        )
        replies.append(
            ToolMessage(
                content=_clip(text, MAX_TOOL_CHARS),
                tool_call_id=call["id"],
                name=call["name"],
                status="success" if result.ok else "error",
            )
        )
        sources += [s.model_dump() for s in result.sources]
    return {"messages": replies, "sources": sources}


async def _refused(reason: str) -> ToolResult:
    return ToolResult.fail(reason)


def _as_read(deps: Deps, name: str, content: str) -> str:
    """A tool's result as the model reads it: outside text as data (`dure.untrusted`)."""
    own = name in deps.tools and deps.tools.get(name).own_output
    return content if own else as_data(content, name)
