"""The real contract agent with the scripted model in place of the LLM, for `dure mcp` in a
subprocess: `DURE_EXTRA_AGENTS="contract=mcp_agents:CONTRACT"` with `tests/` on PYTHONPATH
(an extra agent of a built-in's name takes its place). Only the model is stood in for: the
graph, its nodes, search and the figure check are the shipped ones."""

from __future__ import annotations

import os
from dataclasses import replace

from dure.agent import AgentContext
from dure.agents.contract import AGENT
from dure.agents.contract.deps import Deps
from dure.llm import ModelSet
from dure.testing import ScriptedChatModel

#: What the stand-in model answers (its figures are 제2조's, so the figure check keeps them).
ANSWER = "제2조(계약기간)에 따르면 계약기간은 2025년 1월 1일부터 2025년 12월 31일까지입니다."


def _deps(ctx: AgentContext) -> Deps:
    # A chatty library: under `dure mcp` none of this may reach the protocol on stdout.
    print("chatty library output")
    os.write(1, b"chatty C code output\n")
    model = ScriptedChatModel(lambda call: ANSWER)
    return Deps.from_context(replace(ctx, models=ModelSet(ctx.settings, model)))


CONTRACT = replace(AGENT, deps=_deps)
