"""OpenTelemetry traces of a turn, read back from the SDK's in-memory exporter: one trace whose
node spans match `done.usage.by_node`, LLM spans with their token counts, tool spans under their
node, and no message text unless `telemetry.capture_content` turns it on (masked even then)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from dure.agent import AgentContext
from dure.agents.assistant import AGENT
from dure.events import Done, stream_turn
from dure.llm import ModelSet
from dure.settings import Settings
from dure.sources import Source
from dure.telemetry import tracing, use_tracer_provider
from dure.testing import ScriptedChatModel, tool_call

QUESTION = "백이십삼에 사백오십육을 곱한 값은?"
ANSWER = "계산해 보니 오만육천팔십팔입니다."


class NoDocuments:
    """A collection with nothing in it (so the router has a real choice to make)."""

    def search(self, query: str, top_k: int) -> list[Source]:
        return []


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    use_tracer_provider(provider)
    yield exporter
    use_tracer_provider(None)


async def assistant_turn(settings: Settings, answer: str = ANSWER) -> Done:
    model = ScriptedChatModel(
        [
            {"route": "agent", "reason": "계산"},
            tool_call("calculator", expression="123*456"),
            answer,
        ]
    )
    ctx = AgentContext(
        settings, ModelSet(settings, model), InMemorySaver(), {"retriever": NoDocuments()}
    )
    events = [e async for e in stream_turn(AGENT, ctx, "thread-1", QUESTION)]
    assert isinstance(events[-1], Done)
    return events[-1]


def by_id(finished: tuple[ReadableSpan, ...]) -> dict[int, ReadableSpan]:
    return {s.context.span_id: s for s in finished}


def is_chat(span: ReadableSpan) -> bool:
    return (span.attributes or {}).get("gen_ai.operation.name") == "chat"


@pytest.mark.usefixtures("llm_tier")
async def test_a_turn_is_one_trace_whose_node_spans_match_usage(
    settings: Settings, spans: InMemorySpanExporter
) -> None:
    done = await assistant_turn(settings)
    finished = spans.get_finished_spans()
    (root,) = [s for s in finished if s.parent is None]
    assert root.name == "invoke_agent assistant"
    assert root.attributes is not None and root.attributes["gen_ai.agent.name"] == "assistant"
    assert {s.context.trace_id for s in finished} == {root.context.trace_id}
    spans_by_id = by_id(finished)

    nodes = [s for s in finished if "dure.step" in (s.attributes or {})]
    assert [n.name for n in sorted(nodes, key=lambda s: s.start_time or 0)][:2] == [
        "router",
        "memory",
    ]
    assert all(n.parent is not None and n.parent.span_id == root.context.span_id for n in nodes)
    # Every LLM call hangs under a span of the node usage counts it for, with its tokens.
    counted: dict[str, dict[str, int]] = {}
    for call in filter(is_chat, finished):
        attrs = call.attributes or {}
        assert call.parent is not None
        parent = spans_by_id[call.parent.span_id]
        assert parent.name == attrs["dure.node"]
        node = counted.setdefault(parent.name, {"calls": 0, "input": 0, "output": 0})
        node["calls"] += 1
        node["input"] += int(str(attrs["gen_ai.usage.input_tokens"]))
        node["output"] += int(str(attrs["gen_ai.usage.output_tokens"]))
        assert attrs["gen_ai.request.model"] and attrs["dure.llm.cache_hit"] is False
    assert {
        name: (u.llm_calls, u.prompt_tokens, u.completion_tokens)
        for name, u in done.usage.by_node.items()
    } == {name: (c["calls"], c["input"], c["output"]) for name, c in counted.items()}
    assert counted["router"]["calls"] == 1 and counted["agent"]["calls"] == 2
    assert min(c["input"] for c in counted.values()) > 0
    assert root.attributes["dure.usage.llm_calls"] == done.usage.llm_calls == 3

    (tool,) = [s for s in finished if s.name == "execute_tool calculator"]
    assert tool.attributes is not None and tool.attributes["gen_ai.tool.name"] == "calculator"
    assert tool.parent is not None and spans_by_id[tool.parent.span_id].name == "tools"
    assert all(s.end_time is not None for s in finished)


def attribute_text(finished: tuple[ReadableSpan, ...]) -> str:
    return json.dumps([dict(s.attributes or {}) for s in finished], ensure_ascii=False, default=str)


@pytest.mark.usefixtures("llm_tier")
async def test_no_message_text_in_spans_by_default(
    settings: Settings, spans: InMemorySpanExporter
) -> None:
    await assistant_turn(settings)
    text = attribute_text(spans.get_finished_spans())
    for said in (QUESTION, ANSWER, "123*456", "56088", "계산"):
        assert said not in text
    assert "gen_ai.input.messages" not in text


@pytest.mark.usefixtures("llm_tier")
async def test_captured_content_is_masked(settings: Settings, spans: InMemorySpanExporter) -> None:
    settings.telemetry.capture_content = True
    await assistant_turn(settings, f"{ANSWER} 결과는 010-1234-5678로도 보냈습니다.")
    finished = spans.get_finished_spans()
    text = attribute_text(finished)
    assert "010-1234-5678" not in text and "[전화번호]" in text
    first_call = next(s for s in finished if is_chat(s))
    sent: list[dict[str, Any]] = json.loads(
        str((first_call.attributes or {})["gen_ai.input.messages"])
    )
    assert [m["role"] for m in sent] == ["system", "user"]
    assert QUESTION in sent[1]["parts"][0]["content"]
    (tool,) = [s for s in finished if s.name == "execute_tool calculator"]
    assert (tool.attributes or {})["gen_ai.tool.call.result"] == "56088"


def test_tracing_is_off_without_an_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in tracing.ENDPOINT_VARS:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(tracing, "_configured", False)
    assert tracing.tracer() is None
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318")
    monkeypatch.setattr(tracing, "_configured", False)
    assert tracing.tracer() is not None
    use_tracer_provider(None)


GLOBAL_PROVIDER = """
import asyncio
from langgraph.checkpoint.memory import InMemorySaver
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from dure.agent import AgentContext
from dure.agents.assistant import AGENT
from dure.events import stream_turn
from dure.llm import ModelSet
from dure.settings import get_settings
from dure.testing import ScriptedChatModel

exporter = InMemorySpanExporter()
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(exporter))
trace.set_tracer_provider(provider)
settings = get_settings()
ctx = AgentContext(settings, ModelSet(settings, ScriptedChatModel(["안녕하세요!"])), InMemorySaver())

async def main():
    async for _ in stream_turn(AGENT, ctx, "t", "안녕"):
        pass

asyncio.run(main())
print(sorted(s.name for s in exporter.get_finished_spans()))
"""


def test_a_global_provider_gets_the_spans(tmp_path: Path) -> None:
    """`opentelemetry-instrument` (or an embedding application) sets the global provider."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    env["DURE_DATA_DIR"] = str(tmp_path)
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(GLOBAL_PROVIDER)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    names = out.stdout.strip().splitlines()[-1]
    assert (
        "'invoke_agent assistant'" in names
        and "'agent'" in names
        and "'chat dure-scripted'" in names
    )
