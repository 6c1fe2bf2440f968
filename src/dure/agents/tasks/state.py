"""The task agent's state (docs/agents/tasks.md): `ConversationState`, steps, the graph state.

`ConversationState` (`intent`, `slots`, `required_slots`, `pending_slots`, `defaults`,
`approvals`, `get_missing_required_slots()`, `is_required_slots_filled()`) also has
`optional_slots`, required slots a request may add (see `IntentSchema.required_for`), and slot
validation — a required slot whose value its validator rejects counts as missing, so the gate
never passes on a bad value.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal, TypedDict

from dure.agent import Answer, UserTurn
from dure.agents.tasks.intents import get_intent
from dure.agents.tasks.schema import IntentSchema, is_filled
from dure.korean.time import SEOUL, as_seoul
from dure.sources import parse_sources

if TYPE_CHECKING:
    from dure.agents.tasks.deps import Deps


@dataclass
class ConversationState:
    """What the conversation has established for one task."""

    intent: str = ""
    slots: dict[str, Any] = field(default_factory=dict)
    required_slots: list[str] = field(default_factory=list)
    optional_slots: list[str] = field(default_factory=list)
    pending_slots: list[str] = field(default_factory=list)
    defaults: dict[str, Any] = field(default_factory=dict)
    approvals: dict[str, bool] = field(default_factory=dict)

    @classmethod
    def for_intent(cls, schema: IntentSchema, request: str = "") -> ConversationState:
        """A fresh state for `schema`; words of `request` may make optional slots required."""
        required = schema.required_for(request)
        state = cls(
            intent=schema.name,
            required_slots=required,
            optional_slots=[s.name for s in schema.slots if s.name not in required],
            defaults=schema.defaults(),
        )
        state.pending_slots = list(required)
        return state

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> ConversationState:
        """Rebuild from `to_dict()` (as kept in the graph's checkpointed state)."""
        return cls(**(data or {}))

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able data."""
        return asdict(self)

    def schema(self) -> IntentSchema | None:
        """The intent's schema (None for an empty intent)."""
        return get_intent(self.intent) if self.intent else None

    def validate_slot(self, slot: str, value: Any, now: datetime | None = None) -> str | None:
        """None when `value` is good for `slot`, else the reason (Korean)."""
        schema = self.schema()
        spec = schema.spec(slot) if schema else None
        if spec is None:
            return None
        return spec.validate(value, as_seoul(now) if now else datetime.now(SEOUL))

    def invalid_slots(self, now: datetime | None = None) -> dict[str, str]:
        """Filled slots whose value is rejected, with the reason."""
        reasons = {
            slot: self.validate_slot(slot, value, now)
            for slot, value in self.slots.items()
            if is_filled(value)
        }
        return {slot: reason for slot, reason in reasons.items() if reason}

    def get_missing_required_slots(self, now: datetime | None = None) -> list[str]:
        """Required slots not yet filled with a valid value.

        Q&A gate: `len(get_missing_required_slots()) == 0` → COMPLETED.
        """
        invalid = self.invalid_slots(now)
        return [
            slot
            for slot in self.required_slots
            if not is_filled(self.slots.get(slot)) or slot in invalid
        ]

    def is_required_slots_filled(self, now: datetime | None = None) -> bool:
        """Every required slot is filled (and valid)."""
        return len(self.get_missing_required_slots(now)) == 0

    def value(self, slot: str) -> Any:
        """The slot's value, or its default."""
        value = self.slots.get(slot)
        return value if is_filled(value) else self.defaults.get(slot)

    def canonical(self, slot: str) -> Any:
        """The slot's value in its canonical form (a place's area, a food's category)."""
        value = self.value(slot)
        spec = get_intent(self.intent).spec(slot) if self.intent else None
        return spec.canonical_value(value) if spec and is_filled(value) else value


StepStatus = Literal["pending", "waiting_user", "completed", "cancelled", "failed"]
StepKind = Literal["qa", "confirm", "worker"]


class AgentStep(TypedDict):
    """One step of the orchestrator's workflow."""

    agent_name: str
    kind: StepKind
    description: str
    status: StepStatus
    message: str
    final_data: dict[str, Any]


def new_step(agent_name: str, kind: StepKind, description: str) -> AgentStep:
    """A pending step."""
    return AgentStep(
        agent_name=agent_name,
        kind=kind,
        description=description,
        status="pending",
        message="",
        final_data={},
    )


class TaskState(TypedDict, total=False):
    """The graph state (checkpointed, so a conversation waiting for the user survives restarts)."""

    user_input: str
    last_message: str
    now: str
    conversation: dict[str, Any]
    steps: list[AgentStep]
    current: int | None
    question: str
    results: dict[str, dict[str, Any]]
    cancelled: bool
    answer: str
    sources: list[dict[str, Any]]


def make_input(turn: UserTurn, deps: Deps) -> TaskState:
    """A new request (a reply to a pending question resumes the interrupt instead).

    An explicit previous turn is not used: what a task has established lives in its slots.
    """
    return {"user_input": turn.message, "now": deps.now().isoformat()}


def output(values: TaskState) -> Answer:
    """The answer and the places or rooms it names."""
    return Answer(values.get("answer", ""), parse_sources(values.get("sources")))
