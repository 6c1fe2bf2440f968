"""Prometheus metrics in one process: a turn's LLM calls and tokens per node as its usage counts
them, its outcome, tool calls and errors, sandbox runs, and the exposition parsed back."""

from __future__ import annotations

from collections.abc import Callable

from langgraph.checkpoint.memory import InMemorySaver
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

from dure.agent import AgentContext
from dure.agents.assistant import AGENT
from dure.events import Done, stream_turn
from dure.llm import ModelSet
from dure.settings import Settings
from dure.telemetry import metrics
from dure.testing import ScriptedChatModel, tool_call
from dure.tools.base import ToolRegistry
from dure.tools.calculator import calculator_tool
from dure.tools.python_repl import python_repl_tool


def sample(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def counted(name: str, **labels: str) -> Callable[[], float]:
    """What `name` has counted since this call."""
    before = sample(name, **labels)
    return lambda: sample(name, **labels) - before


async def turn(settings: Settings, *script: object) -> Done:
    ctx = AgentContext(
        settings, ModelSet(settings, ScriptedChatModel(list(script))), InMemorySaver()
    )
    events = [e async for e in stream_turn(AGENT, ctx, "metrics", "123 * 456 계산해줘")]
    assert isinstance(events[-1], Done)
    return events[-1]


async def test_a_turn_counts_what_its_usage_reports(settings: Settings) -> None:
    agent = {"agent": "assistant", "node": "agent"}
    calls = counted("dure_llm_calls_total", **agent, role="-", outcome="ok")
    tokens_in = counted("dure_llm_tokens_total", **agent, type="input")
    tokens_out = counted("dure_llm_tokens_total", **agent, type="output")
    ok = counted("dure_turns_total", agent="assistant", outcome="ok")
    tool = counted("dure_tool_calls_total", agent="assistant", tool="calculator", outcome="ok")
    nodes = counted("dure_node_duration_seconds_count", **agent)
    done = await turn(settings, tool_call("calculator", expression="123*456"), "56,088입니다.")
    usage = done.usage.by_node["agent"]
    assert calls() == usage.llm_calls == 2
    assert (tokens_in(), tokens_out()) == (usage.prompt_tokens, usage.completion_tokens)
    assert ok() == 1 and tool() == 1 and nodes() == 2
    assert sample("dure_turns_in_progress", agent="assistant") == 0


async def test_a_budget_stop_is_its_outcome(settings: Settings) -> None:
    settings.max_llm_calls_per_turn = 1
    budget = counted("dure_turns_total", agent="assistant", outcome="budget")
    await turn(settings, tool_call("calculator", expression="1+1"), "2")
    assert budget() == 1


async def test_tool_errors_and_sandbox_runs_are_counted(settings: Settings) -> None:
    registry = ToolRegistry([calculator_tool(), python_repl_tool(settings)])
    failed = counted("dure_tool_calls_total", agent="-", tool="calculator", outcome="error")
    unknown = counted("dure_tool_calls_total", agent="-", tool="nope", outcome="error")
    runs = {o: counted("dure_sandbox_runs_total", outcome=o) for o in ("ok", "error")}
    assert not (await registry.run("calculator", {"expression": "1/"})).ok
    assert not (await registry.run("nope", {})).ok
    assert (await registry.run("python_repl", {"code": "print(1)"})).ok
    assert not (await registry.run("python_repl", {"code": "raise SystemExit(3)"})).ok
    assert (failed(), unknown()) == (1, 1)
    assert (runs["ok"](), runs["error"]()) == (1, 1)


def test_the_exposition_parses() -> None:
    metrics.TURNS_REJECTED.inc()
    body, content_type = metrics.exposition()
    assert content_type.startswith("text/plain")
    families = {f.name: f for f in text_string_to_metric_families(body.decode())}
    assert {"dure_turns", "dure_llm_calls", "dure_sandbox_runs", "dure_llm_queue_depth"} <= set(
        families
    )
    assert families["dure_turns_rejected"].samples[0].value >= 1
