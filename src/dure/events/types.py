"""The typed events every agent streams (docs/agents/README.md lists them).

As JSON an event is one object: `type`, `content`, and its own fields.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, TypeAdapter

from dure.errors import ErrorCode
from dure.sources import Source
from dure.usage import DecidedBy, Usage


class _Event(BaseModel):
    content: Any = None

    def to_json(self) -> dict[str, Any]:
        """The event as one JSON object."""
        return self.model_dump(mode="json", exclude_none=True)

    def __getitem__(self, key: str) -> Any:
        """A field by name, as the JSON object has it (`event["type"]`, `event["content"]`)."""
        return self.to_json()[key]


class Thinking(_Event):
    """A node at work (`step` is the node, `content` a short Korean line). A line that reports
    a decision about the user's words says which tier made it (`decided_by`)."""

    type: Literal["thinking"] = "thinking"
    step: str = ""
    decided_by: DecidedBy | None = None


class Planning(_Event):
    """The planner is choosing what to do next."""

    type: Literal["planning"] = "planning"


class ToolSelected(_Event):
    """Tools chosen for execution (`tools`: name + args each)."""

    type: Literal["tool_selected"] = "tool_selected"
    tools: list[dict[str, Any]] = Field(default_factory=list)


class ToolResultEvent(_Event):
    """One tool finished (or failed); `step` carries plan-then-execute's audit record."""

    type: Literal["tool_result"] = "tool_result"
    tool: str = ""
    ok: bool = True
    step: dict[str, Any] | None = None


class EvaluationResult(_Event):
    """The sufficiency evaluator's judgement."""

    type: Literal["evaluation_result"] = "evaluation_result"
    is_sufficient: bool = False
    missing_info: str | None = None


class Slots(_Event):
    """The task agent's slot state (`content`: slots, `missing`: required ones still empty;
    `rows`: the same as people read them — `slot`, Korean `label` and `value`, `missing`)."""

    type: Literal["slots"] = "slots"
    missing: list[str] = Field(default_factory=list)
    rows: list[dict[str, Any]] = Field(default_factory=list)


class Question(_Event):
    """The agent waits for the user's reply to `content`; an approval of a tool's side effect
    also carries the request itself (`approval`: tool, args, why — `dure.tools.approval`)."""

    type: Literal["question"] = "question"
    approval: dict[str, Any] | None = None


class Queued(_Event):
    """The turn waits for the model: `ahead` calls (of this or other turns) go first
    (`content`: "대기 중: 앞에 2개"). Sent again whenever the number changes."""

    type: Literal["queued"] = "queued"
    ahead: int = 0


class Generating(_Event):
    """The final answer is being written."""

    type: Literal["generating"] = "generating"


class Token(_Event):
    """A piece of the streamed answer."""

    type: Literal["token"] = "token"


class SourcesEvent(_Event):
    """Sources (`content`: list of sources): what was retrieved, sent before the answer is
    written (`stage="retrieved"`), then what the finished answer cites (`stage="cited"`)."""

    type: Literal["sources"] = "sources"
    content: list[Source] = Field(default_factory=list)
    stage: Literal["retrieved", "cited"] = "cited"


class ErrorEvent(_Event):
    """Something went wrong; `code` is machine-readable, `content` Korean."""

    type: Literal["error"] = "error"
    code: ErrorCode = ErrorCode.INTERNAL


class Done(_Event):
    """The turn is over: final answer, sources and usage."""

    type: Literal["done"] = "done"
    sources: list[Source] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    waiting: bool = False


Event = Annotated[
    Thinking
    | Planning
    | ToolSelected
    | ToolResultEvent
    | EvaluationResult
    | Slots
    | Question
    | Queued
    | Generating
    | Token
    | SourcesEvent
    | ErrorEvent
    | Done,
    Field(discriminator="type"),
]

EVENT_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event)


def parse_event(data: dict[str, Any]) -> Event:
    """Rebuild a typed event from its JSON object."""
    return EVENT_ADAPTER.validate_python(data)
