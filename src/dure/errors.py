"""Dure's errors: one code enum, and the exception a user can cause and fix.

Every `error` event carries an `ErrorCode`, and graphs route on codes, never on message text.
A `DureError` carries its code too; its message is the one line shown to the user.
"""

from __future__ import annotations

from enum import StrEnum


class ErrorCode(StrEnum):
    """Why a turn (or a step of it) did not go as asked; the value is what JSON carries."""

    #: The message was empty or too long.
    BAD_MESSAGE = "bad_message"
    #: The turn reached its LLM-call or token budget.
    BUDGET = "budget"
    #: The server stopped the turn (server shutting down).
    INTERRUPTED = "interrupted"
    #: The turn was stopped: a stop button or cancel request, Ctrl-C, or its client left.
    CANCELLED = "cancelled"
    #: No chat model could be reached or loaded.
    LLM_UNAVAILABLE = "llm_unavailable"
    #: Searching the documents failed.
    RETRIEVAL = "retrieval"
    #: The contract agent has no contract to answer from.
    NO_CONTRACT = "no_contract"
    #: The thread is bound to another contract than the one given.
    CONTRACT_CONFLICT = "contract_conflict"
    #: A model's structured output could not be read.
    STRUCTURED_OUTPUT = "structured_output"
    #: A model's structured output was not valid JSON.
    INVALID_JSON = "invalid_json"
    #: A model's structured output did not match its schema.
    SCHEMA = "schema"
    #: A plan named a tool that is not on the agent's allow-list.
    TOOL_NOT_ALLOWED = "tool_not_allowed"
    #: The re-planner ran out of attempts.
    REPLAN_LIMIT = "replan_limit"
    #: The user's intent could not be classified.
    INTENT = "intent"
    #: A problem the user can fix (configuration, input, a missing file): see the message.
    USER_ERROR = "user_error"
    #: Anything unexpected; logged with its traceback, shown as a short apology.
    INTERNAL = "internal"


class DureError(Exception):
    """A user-fixable problem (bad configuration, bad input); never shown as a traceback."""

    code: ErrorCode = ErrorCode.USER_ERROR
