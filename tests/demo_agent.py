"""A tiny agent in one module, built with the agent kit: it remembers the user's name.

It is the README's example of adding an agent: a state, `Deps`, node functions, `AGENT`.

Not registered in the package: tests plug it in with `DURE_EXTRA_AGENTS="demo=demo_agent:AGENT"`
(and `tests/` on `PYTHONPATH` for a `dure` subprocess). Its chat model is always a
`ScriptedChatModel` whose answer is computed from the prompt, so no test reaches a real LLM.

Flow: `remember` (reads a name from the message; asked for its name before knowing it, it
waits for the user with `interrupt()`) → `answer` (one streamed LLM call tagged `ANSWER_TAG`).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, TypedDict

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, SystemMessage
from langgraph.graph import END, START
from langgraph.graph.message import add_messages
from langgraph.types import interrupt

from dure.agent import AgentContext, AgentSpec, Answer, Edge, UserTurn
from dure.events import Thinking, emit
from dure.tags import ANSWER_TAG
from dure.testing import Call, ScriptedChatModel

NAME_IS = re.compile(r"(?:내|제)\s*이름은\s*(\S+?)(?:이에요|예요|입니다|이야|야)?[.!]?$")
ASKS_NAME = re.compile(r"이름이\s*(?:뭐|무엇)")
KNOWN = "기억한 이름: "
ASK_FOR_NAME = "아직 이름을 모릅니다. 이름이 무엇인가요?"


class DemoState(TypedDict, total=False):
    """The conversation and the one fact it keeps."""

    messages: Annotated[list[AnyMessage], add_messages]
    name: str | None


def parse_name(text: str) -> str | None:
    """`민수` from `내 이름은 민수야`."""
    m = NAME_IS.search(text.strip())
    return m.group(1) if m else None


def respond(call: Call) -> str:
    """The scripted model's answer, computed from the prompt (deterministic)."""
    system = next((str(m.content) for m in call.messages if isinstance(m, SystemMessage)), "")
    name = system.removeprefix(KNOWN) if system.startswith(KNOWN) else None
    last = str(call.messages[-1].content)
    if ASKS_NAME.search(last):
        return f"당신의 이름은 {name}입니다." if name else "아직 이름을 모릅니다."
    return f"반가워요, {name}님!" if name else "안녕하세요!"


@dataclass(frozen=True)
class Deps:
    """What the nodes work with: the chat model."""

    model: BaseChatModel

    @classmethod
    def from_context(cls, ctx: AgentContext) -> Deps:
        # Always scripted: the CLI subprocess would otherwise load the configured (real) model.
        return cls(ctx.options.get("model") or ScriptedChatModel(respond))


async def remember(state: DemoState, *, deps: Deps) -> DemoState:
    """Read a name from the message; asked for it before knowing it, wait for the user."""
    emit(Thinking(step="remember", content="이름을 기억하는 중"))
    text = str(state["messages"][-1].content)
    name = parse_name(text) or state.get("name")
    if name is None and ASKS_NAME.search(text):
        reply = str(interrupt(ASK_FOR_NAME))
        name = parse_name(reply) or reply.strip()
    return {"name": name}


async def answer(state: DemoState, *, deps: Deps) -> DemoState:
    """One streamed LLM call tagged `ANSWER_TAG`."""
    name = state.get("name")
    prompt = [SystemMessage(f"{KNOWN}{name}" if name else "이름 모름"), *state["messages"]]
    return {"messages": [await deps.model.ainvoke(prompt, config={"tags": [ANSWER_TAG]})]}


def make_input(turn: UserTurn, deps: Deps) -> DemoState:
    return {"messages": [HumanMessage(turn.message)]}


def output(values: DemoState) -> Answer:
    messages = values.get("messages") or []
    text = str(messages[-1].content) if messages and isinstance(messages[-1], AIMessage) else ""
    return Answer(text, [])


AGENT = AgentSpec(
    name="demo",
    title="이름을 기억하는 데모",
    state=DemoState,
    deps=Deps.from_context,
    nodes={"remember": remember, "answer": answer},
    edges=[Edge(START, "remember"), Edge("remember", "answer"), Edge("answer", END)],
    make_input=make_input,
    output=output,
)


# --- running the demo through the real `dure` command in a new process ---------------------

DURE = Path(sys.executable).with_name("dure")


def cli_env(data_dir: Path, **overrides: str) -> dict[str, str]:
    """The environment of a `dure` subprocess that knows the demo agent (no inherited DURE_*)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DURE_")}
    env.update(
        PYTHONPATH=os.pathsep.join(
            filter(None, [str(Path(__file__).parent), env.get("PYTHONPATH")])
        ),
        DURE_EXTRA_AGENTS="demo=demo_agent:AGENT",
        DURE_DATA_DIR=str(data_dir),
        DURE_ENABLE_CACHE="false",
        NO_COLOR="1",
    )
    env.update(overrides)
    return env


def run_dure(
    *args: str, env: dict[str, str], stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """`dure ARGS` in a new process; its output as text."""
    return subprocess.run(
        [str(DURE), *args],
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
