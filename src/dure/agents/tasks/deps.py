"""What the task agent's nodes work with: settings, models by role, the clock."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from dure.agent import AgentContext
from dure.korean.time import SEOUL, as_seoul
from dure.llm import ModelSet
from dure.settings import Settings

#: Who asks when no API key does: the CLI, or a server without keys (loopback only).
LOCAL_OWNER = "local"


@dataclass(frozen=True)
class Deps:
    """Built once per graph; `pinned_now` fixes the clock (tests and benchmarks); `owner` is who
    asks: the server's owner id of the API key, or `local` (the CLI, a server without keys)."""

    settings: Settings
    models: ModelSet
    pinned_now: datetime | None = None
    owner: str = LOCAL_OWNER

    @classmethod
    def from_context(cls, ctx: AgentContext) -> Deps:
        """`options["now"]` (a datetime or an ISO string) pins the clock; `options["owner"]`
        names who asks."""
        fixed = ctx.options.get("now")
        if fixed and not isinstance(fixed, datetime):
            fixed = datetime.fromisoformat(str(fixed))
        owner = str(ctx.options.get("owner") or LOCAL_OWNER)
        return cls(ctx.settings, ctx.models, as_seoul(fixed) if fixed else None, owner)

    def now(self) -> datetime:
        """The present in Asia/Seoul (or the pinned time)."""
        return self.pinned_now or datetime.now(SEOUL)
