"""The state as text for the prompts: previous turn, tool history, collected information.

The answer context keeps the user's contract and the standard contract in separate,
labelled sections so the model cannot mistake one for the other; everything is cut to a
character budget so a small local model's context window is never overrun.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, AnyMessage, BaseMessage, HumanMessage, SystemMessage

from dure.agents.contract import prompts
from dure.agents.contract.rules import first_search, first_search_call
from dure.agents.contract.state import ContractState
from dure.agents.contract.tools import table_of_contents
from dure.documents.contract import Contract
from dure.korean.followup import format_previous_turn
from dure.untrusted import as_data

#: The answer prompt's budget for collected information (characters).
CONTEXT_BUDGET = 5000
#: One side of the previous turn, cut here.


def previous_turn_from(messages: list[AnyMessage]) -> list[dict[str, Any]]:
    """The last complete user/assistant exchange before the current message (직전 1턴)."""
    history = messages[:-1] if messages and isinstance(messages[-1], HumanMessage) else messages
    for i in range(len(history) - 1, 0, -1):
        ai, human = history[i], history[i - 1]
        if isinstance(ai, AIMessage) and isinstance(human, HumanMessage):
            return [
                {"role": "user", "content": human.text},
                {
                    "role": "assistant",
                    "content": ai.text,
                    "sources": ai.additional_kwargs.get("sources", []),
                },
            ]
    return []


def _call_text(name: str, args: dict[str, Any]) -> str:
    inner = ", ".join(f"{k}={v!r}" for k, v in args.items() if v is not None)
    return f"{name}({inner})"


def format_tool_history(tool_history: list[dict[str, Any]]) -> str:
    """One line per executed tool: call, outcome."""
    if not tool_history:
        return "(없음)"
    return "\n".join(
        f"- {_call_text(h['name'], h['args'])}: {'성공' if h['ok'] else '실패'} — {h['summary']}"
        for h in tool_history
    )


def format_collected_brief(collected_info: list[dict[str, Any]]) -> str:
    """What has been collected, as article headings only (the planner needs no full text)."""
    lines = []
    for info in collected_info:
        heads = [
            f"{a['article_no']}({a['title']})" if a.get("title") else str(a["article_no"])
            for a in info.get("articles", [])
            if a.get("article_no")
        ]
        what = ", ".join(heads) if heads else info["content"][:80]
        lines.append(f"- {info['tool']}: {what if info['ok'] else '실패: ' + info['content'][:80]}")
    return "\n".join(lines) or "(없음)"


def collected_articles(collected_info: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    """Every article of `kind` the tools read, in order, without repeats."""
    seen: set[tuple[str, str | None]] = set()
    out = []
    for info in collected_info:
        for a in info.get("articles", []) if info["ok"] else []:
            key = (a["doc"], a.get("article_no") or a["text"][:40])
            if a["kind"] == kind and key not in seen:
                seen.add(key)
                out.append(a)
    return out


def _section(template: str, articles: list[dict[str, Any]], budget: int) -> tuple[str, int]:
    if not articles or budget <= 0:
        return "", budget
    body = "\n\n".join(a["text"] for a in articles)[:budget]
    return template.format(
        doc=articles[0]["doc"], body=as_data(body, articles[0]["doc"])
    ), budget - len(body)


#: Hits of the question's own search kept in view when no rule focused the answer: with all of
#: them beside what the rounds read, the small model often cited the wrong one.
SEARCH_FOCUS = 2


def _in_view(collected: list[dict[str, Any]], focus: set[str]) -> list[dict[str, Any]]:
    """The user's contract articles the answer sees: the focus articles when a rule settled the
    search; else everything collected but the question's own search's hits past the first
    `SEARCH_FOCUS` (unless another tool read them too)."""
    articles = collected_articles(collected, "contract")
    focused = [a for a in articles if a.get("article_no") in focus]
    if focused:
        return focused
    searched = first_search(collected)
    first = first_search_call(collected)
    others = collected_articles([i for i in collected if i is not first], "contract")
    kept = {a.get("article_no") for a in others}
    beyond = {s["article_no"] for s in searched[SEARCH_FOCUS:]} - kept
    return [a for a in articles if a.get("article_no") not in beyond] or articles


def answer_context(state: ContractState) -> str:
    """The respond prompt's context: user's contract (only the focus articles when a rule
    settled the search, else without the search's weaker hits), standard contract, notes,
    previous turn."""
    collected = state.get("collected_info", [])
    by_kind = {kind: collected_articles(collected, kind) for kind in ("contract", "standard")}
    by_kind["contract"] = _in_view(collected, set(state.get("focus_articles") or []))
    # Each document kind present gets its share, so a long contract never crowds out the
    # standard contract it is being compared with.
    share = CONTEXT_BUDGET // max(1, sum(1 for a in by_kind.values() if a))
    sections: list[str] = []
    for template, kind in (
        (prompts.CONTEXT_CONTRACT, "contract"),
        (prompts.CONTEXT_STANDARD, "standard"),
    ):
        articles = by_kind[kind]
        budget = share
        for doc in dict.fromkeys(a["doc"] for a in articles):
            same_doc = [a for a in articles if a["doc"] == doc]
            text, budget = _section(template, same_doc, budget)
            if text:
                sections.append(text)
    # A failed tool is said to have failed, so no answer reads its error as a finding.
    notes = [
        i["content"]
        if i.get("ok", True)
        else prompts.CONTEXT_FAILED.format(tool=i.get("tool", "도구"), why=i["content"])
        for i in collected
        if not i.get("articles")
    ]
    if notes:
        sections.append(prompts.CONTEXT_OTHER.format(body=as_data("\n".join(notes)[:1000])))
    context = "\n\n".join(sections) or prompts.CONTEXT_EMPTY
    if state.get("need_previous_context") and state.get("previous_turn"):
        previous = format_previous_turn(state["previous_turn"])
        context = prompts.CONTEXT_PREVIOUS.format(previous_turn=previous) + "\n\n" + context
    return context


def answer_messages(state: ContractState, task: str) -> list[BaseMessage]:
    """The evaluator's and respond's prompt: the same system prompt, collected information and
    question (one prefix, evaluated once and reused from the prompt cache), then `task` as a
    last system message (in the user's turn, a small model repeated it in its answer)."""
    user = prompts.ANSWER_USER.format(
        context=answer_context(state), user_message=state["user_message"]
    )
    return [SystemMessage(prompts.ANSWER_SYSTEM), HumanMessage(user), SystemMessage(task)]


def planner_messages(
    state: ContractState,
    manifest: str,
    contract: Contract | None,
) -> list[BaseMessage]:
    """The planner's prompt: question, table of contents, what was done and what is missing."""
    previous = ""
    if state.get("need_previous_context") and state.get("previous_turn"):
        previous = prompts.PLANNER_PREVIOUS.format(
            previous_turn=format_previous_turn(state["previous_turn"])
        )
    user = prompts.PLANNER_USER.format(
        user_message=state["user_message"],
        previous=previous,
        toc=table_of_contents(contract) if contract else "(불러올 수 없음)",
        tool_history=format_tool_history(state.get("tool_history", [])),
        collected=format_collected_brief(state.get("collected_info", [])),
        explored=", ".join(state.get("explored_articles", [])) or "(없음)",
        unexplored=", ".join(state.get("unexplored_articles", [])) or "(없음)",
        missing_info=state.get("missing_info") or "(없음)",
    )
    return [
        SystemMessage(prompts.PLANNER_SYSTEM.format(manifest=manifest)),
        HumanMessage(user),
    ]
