"""The contract agent's state (docs/agents/contract.md), its input and its output.

Per-turn fields are reset by `make_input` at the start of every turn; `messages` and the
thread's contract binding (`contract_id`, `standard_contract_id`) live on across turns in the
checkpointer, so a thread is bound to one contract and remembers its conversation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal, TypedDict

from langchain_core.messages import AnyMessage, HumanMessage
from langgraph.graph.message import Messages, add_messages

from dure.agent import Answer, UserTurn
from dure.errors import ErrorCode
from dure.korean.scope import QuestionKind
from dure.sources import parse_sources

if TYPE_CHECKING:
    from dure.agents.contract.deps import Deps

#: How many messages a thread keeps (only the previous turn is ever read; the rest is history).
MAX_THREAD_MESSAGES = 20


def recent_messages(old: Messages, new: Messages) -> Messages:
    """`add_messages`, keeping the last `MAX_THREAD_MESSAGES` so a long thread stays small."""
    merged = add_messages(old, new)
    return merged[-MAX_THREAD_MESSAGES:] if isinstance(merged, list) else merged


def keep_binding(old: str | None, new: str | None) -> str | None:
    """A thread's document binding: the first one wins; later turns cannot silently switch it."""
    return old or new


class ToolCall(TypedDict):
    """One planned tool call."""

    name: str
    args: dict[str, Any]
    signature: str
    origin: Literal["rule", "llm"]


class ContractState(TypedDict, total=False):
    """The contract Q&A agent's state (fields as docs/agents/contract.md lists them)."""

    # -- input and conversation
    user_message: str
    messages: Annotated[list[AnyMessage], recent_messages]
    contract_id: Annotated[str | None, keep_binding]
    standard_contract_id: Annotated[str | None, keep_binding]
    requested_contract_id: str | None
    requested_standard_id: str | None
    # -- ScopeValidator / check_previous_context
    question_kind: QuestionKind
    need_previous_context: bool | None
    #: A rule saw the message point back ("그 참조항목들 …"): answered from the previous turn.
    previous_pointed: bool
    previous_turn: list[dict[str, Any]]
    # -- planner
    next_tools: list[ToolCall]
    all_tools_skipped: bool
    # -- executors
    tool_history: list[dict[str, Any]]
    collected_info: list[dict[str, Any]]
    explored_articles: list[str]
    unexplored_articles: list[str]
    # -- evaluator
    missing_info: str | None
    #: The user's articles the answer rests on when a rule settled the search (the ones the
    #: question names, or a clear search lead); empty: every article collected.
    focus_articles: list[str]
    iteration_count: int
    decision_log: list[dict[str, Any]]
    # -- respond
    final_response: str
    sources: list[dict[str, Any]]
    #: A fail-closed stop (e.g. a model reply that was not the JSON asked for): respond
    #: turns it into a polite Korean message instead of an answer.
    error: ErrorCode | None


def make_input(turn: UserTurn, deps: Deps) -> ContractState:
    """A turn's input: the message, the thread's documents (indexed on first use), and every
    per-turn field reset. An explicit previous turn replaces the one the checkpoint holds."""
    contract_id, standard_id = deps.document_ids()
    return {
        **reset_turn(turn.message, contract_id, standard_id),
        "previous_turn": [dict(m) for m in turn.previous_turn or []],
    }


def reset_turn(
    message: str, contract_id: str | None = None, standard_contract_id: str | None = None
) -> ContractState:
    """The new message and every per-turn field reset."""
    return {
        "user_message": message,
        "messages": [HumanMessage(message)],
        "contract_id": contract_id,
        "standard_contract_id": standard_contract_id,
        "requested_contract_id": contract_id,
        "requested_standard_id": standard_contract_id,
        "question_kind": "contract",
        "need_previous_context": None,
        "previous_pointed": False,
        "previous_turn": [],
        "next_tools": [],
        "all_tools_skipped": False,
        "tool_history": [],
        "collected_info": [],
        "explored_articles": [],
        "unexplored_articles": [],
        "missing_info": None,
        "focus_articles": [],
        "iteration_count": 0,
        "decision_log": [],
        "final_response": "",
        "sources": [],
        "error": None,
    }


def output(values: ContractState) -> Answer:
    """The final answer and its cited articles."""
    return Answer(values.get("final_response", ""), parse_sources(values.get("sources")))


def last_evaluation(state: ContractState) -> dict[str, Any]:
    """The evaluator's latest entry in the decision log (empty before its first round)."""
    log = state.get("decision_log", [])
    return next((d for d in reversed(log) if d["node"] == "evaluator"), {})
