"""The planner's and executors' bookkeeping: which calls are new, and what results add.

Duplicates are decided by `dure.tools.signature` (tool name + normalised arguments) against
`tool_history`; results are folded into `tool_history`, `collected_info` and the explored /
unexplored article lists (articles cited by explored ones but not yet read).
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import BaseMessage
from pydantic import ValidationError

from dure.agents.contract.state import ContractState, ToolCall
from dure.agents.contract.tools import article_label
from dure.tools import ToolRegistry, ToolResult, UnknownToolError, signature


def model_tool_calls(reply: BaseMessage) -> list[ToolCall]:
    """The tool calls in a model reply, as planned calls."""
    return [
        {
            "name": tc["name"],
            "args": tc.get("args") or {},
            "signature": signature(tc["name"], tc.get("args") or {}),
            "origin": "llm",
        }
        for tc in getattr(reply, "tool_calls", [])
    ]


def canonical_signature(registry: ToolRegistry, name: str, args: dict[str, Any]) -> str:
    """The signature of a call with its schema's defaults filled in.

    `hybrid_search(query=q)` and `hybrid_search(query=q, top_k=3)` are the same call.
    """
    try:
        args = registry.get(name).args_schema.model_validate(args).model_dump()
    except (UnknownToolError, ValidationError):
        pass  # the registry reports bad arguments when the call runs
    return signature(name, args)


def select_tools(
    candidates: list[ToolCall], state: ContractState, registry: ToolRegistry
) -> tuple[list[ToolCall], list[str], list[str]]:
    """(new calls to run, signatures skipped as already executed, unknown tool names)."""
    executed = {h["signature"] for h in state.get("tool_history", [])}
    next_tools: list[ToolCall] = []
    skipped: list[str] = []
    unknown: list[str] = []
    for raw in candidates:
        call: ToolCall = {
            **raw,
            "signature": canonical_signature(registry, raw["name"], raw["args"]),
        }
        if call["name"] not in registry:
            unknown.append(call["name"])
        elif call["signature"] in executed:
            skipped.append(call["signature"])
        elif all(call["signature"] != t["signature"] for t in next_tools):
            next_tools.append(call)
    return next_tools, skipped, unknown


def absorb(state: ContractState, results: list[tuple[ToolCall, ToolResult]]) -> ContractState:
    """Fold tool results into tool_history, collected_info and explored/unexplored articles."""
    iteration = state.get("iteration_count", 0) + 1
    history = list(state.get("tool_history", []))
    collected = list(state.get("collected_info", []))
    explored = list(state.get("explored_articles", []))
    references: list[str] = list(state.get("unexplored_articles", []))
    for call, result in results:
        articles = (result.data or {}).get("articles", []) if result.ok else []
        history.append(
            {
                "name": call["name"],
                "args": call["args"],
                "signature": call["signature"],
                "origin": call["origin"],
                "ok": result.ok,
                "summary": result.content[:120].replace("\n", " "),
                "elapsed_ms": round(result.elapsed_ms, 1),
                "iteration": iteration,
            }
        )
        collected.append(
            {
                "tool": call["name"],
                "args": call["args"],
                "ok": result.ok,
                "content": result.content,
                "articles": articles,
                "sources": [s.model_dump() for s in result.sources],
                "iteration": iteration,
            }
        )
        for a in articles:
            if a.get("article_no"):
                label = article_label(a["kind"], a["article_no"])
                explored.append(label)
                if a["kind"] == "contract":
                    references += a.get("references", [])
    explored = list(dict.fromkeys(explored))
    unexplored = [r for r in dict.fromkeys(references) if r not in explored]
    return {
        "tool_history": history,
        "collected_info": collected,
        "explored_articles": explored,
        "unexplored_articles": unexplored,
    }
