"""Human approval of a tool's side effects, asked as a LangGraph `interrupt()`.

A tool with effects (`Tool.effects` says what it does: running code, reading the server's files)
runs only as its policy allows. Per agent and tool, `approvals` in the settings say `allow`,
`ask` or `deny` (`DURE_APPROVALS__ASSISTANT__PYTHON_REPL=allow`). Without a setting, a tool
with effects is asked about on a shared server (authentication on), and on any server when
the turn already carries text from a document, a web page or another tool (that text might
be steering the model); on the user's own command line it runs. A tool without effects always
runs. A tool from an MCP server (`Tool.ask_first`) is asked about everywhere unless the
settings allow it by name, whatever annotations its server claims.

Asking is an `interrupt()` whose value is an `ApprovalRequest` (tool, arguments, why): the CLI,
the web UI, the HTTP API and the OpenAI-compatible API show its `question`, and the user's
next message is the answer — yes / no as the task agent's confirmation reads it ("승인",
"거절"), or JSON `{"approve": true, "args": {…}}` to run it with edited arguments. Every
approval of a node is asked before any of its tools runs, so resuming (which re-runs the node)
never repeats a side effect. The checkpointer keeps a pending request across restarts.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from langgraph.types import interrupt
from pydantic import BaseModel

from dure.korean.confirm import confirmation
from dure.settings import Settings
from dure.tools.base import ToolRegistry

Policy = Literal["allow", "ask", "deny"]
#: Where a turn runs: the user's own machine, a server, a server shared by keys (auth on).
Where = Literal["local", "server", "shared"]
#: Times an unreadable answer is asked about again before the call is refused.
ASK_AGAIN = 2
DENIED = "설정에서 이 도구의 실행을 허용하지 않습니다 (approvals). 실행하지 않았습니다."
REJECTED = "사용자가 이 도구의 실행을 승인하지 않아 실행하지 않았습니다."


class ApprovalRequest(BaseModel):
    """The value of an approval `interrupt()`: what would run, and why it needs a yes."""

    kind: Literal["approval"] = "approval"
    tool: str
    args: dict[str, Any]
    why: str
    question: str


@dataclass(frozen=True)
class Verdict:
    """A call as approved (`args` possibly edited), or refused with the reason."""

    name: str
    args: dict[str, Any]
    refused: str | None = None


def policy(
    settings: Settings, agent: str, registry: ToolRegistry, name: str, where: Where, untrusted: bool
) -> Policy:
    """How `agent` may run tool `name` in this turn (see the module docstring)."""
    chosen = settings.approvals.get(agent, {}).get(name)
    if chosen is not None:
        return chosen
    if name not in registry or not registry.get(name).effects:
        return "allow"
    if registry.get(name).ask_first or where == "shared" or (where == "server" and untrusted):
        return "ask"
    return "allow"


def why_asked(registry: ToolRegistry, name: str) -> str:
    """What a tool does that needs a yes (or that the settings ask about it)."""
    return registry.get(name).effects or "설정에서 확인을 요구합니다"


def _question(name: str, args: dict[str, Any], why: str) -> str:
    shown = json.dumps(args, ensure_ascii=False, indent=1)
    if len(shown) > 1500:
        shown = shown[:1500] + " …"
    return (
        f"'{name}' 도구를 실행할까요? ({why})\n{shown}\n"
        "승인하려면 '승인', 거절하려면 '거절'이라고 답해 주세요 "
        '(인자를 고치려면 {"approve": true, "args": {…}}).'
    )


def read_answer(reply: Any, args: dict[str, Any]) -> dict[str, Any] | bool | None:
    """The edited or given arguments (approved), False (refused), or None (unreadable)."""
    if isinstance(reply, str) and reply.strip().startswith("{"):
        try:
            reply = json.loads(reply)
        except json.JSONDecodeError:
            return None
    if isinstance(reply, dict):
        if reply.get("approve") is not True:
            return False if reply.get("approve") is False else None
        edited = reply.get("args", args)
        return edited if isinstance(edited, dict) else None
    answer = confirmation(str(reply))
    return args if answer == "yes" else (False if answer else None)


def approve(
    calls: Sequence[tuple[str, dict[str, Any]]],
    registry: ToolRegistry,
    policies: Sequence[Policy],
) -> list[Verdict]:
    """Each call as it may run: allowed, asked (one `interrupt()` each, in order), or refused.

    Must run inside a graph node, before any of the calls runs.
    """
    verdicts = []
    for (name, args), chosen in zip(calls, policies, strict=True):
        if chosen == "allow":
            verdicts.append(Verdict(name, args))
            continue
        if chosen == "deny":
            verdicts.append(Verdict(name, args, DENIED))
            continue
        why = why_asked(registry, name)
        request = ApprovalRequest(
            tool=name, args=args, why=why, question=_question(name, args, why)
        )
        answer: dict[str, Any] | bool | None = None
        for _ in range(1 + ASK_AGAIN):
            answer = read_answer(interrupt(request.model_dump()), args)
            if answer is not None:
                break
            request = request.model_copy(
                update={"question": "승인인지 거절인지 알 수 없습니다. " + request.question}
            )
        if isinstance(answer, dict):
            verdicts.append(Verdict(name, answer))
        else:
            verdicts.append(Verdict(name, args, REJECTED))
    return verdicts
