"""A traced assistant turn on the real local model: LLM spans name llama.cpp, the GGUF file and
the model role, and carry the tokens `done.usage.by_node` counts; the tool span sits under its
node; the local model's queue is empty again afterwards."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from prometheus_client import REGISTRY

from dure.agent import AgentContext
from dure.agents.assistant import AGENT
from dure.events import Done, stream_turn
from dure.llm import ModelSet
from dure.settings import Settings
from dure.telemetry import use_tracer_provider

pytestmark = pytest.mark.local_model


@pytest.fixture
def spans(settings: Settings) -> Iterator[InMemorySpanExporter]:
    if not settings.model_path.is_file():
        pytest.fail(
            f"로컬 모델이 없습니다: {settings.model_path} "
            "(직접 실행할 때는 DURE_LOCAL__PATH=$(dure models path))."
        )
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    use_tracer_provider(provider)
    yield exporter
    use_tracer_provider(None)


async def test_local_model_calls_are_traced(
    settings: Settings, spans: InMemorySpanExporter
) -> None:
    ctx = AgentContext(settings, ModelSet(settings), InMemorySaver())
    events = [e async for e in stream_turn(AGENT, ctx, "local-trace", "123 * 456 계산해줘")]
    done = events[-1]
    assert isinstance(done, Done) and "56" in done.content
    finished = spans.get_finished_spans()
    calls = [s for s in finished if (s.attributes or {}).get("gen_ai.operation.name") == "chat"]
    assert len(calls) == done.usage.llm_calls >= 2
    for call in calls:
        attrs = call.attributes or {}
        assert attrs["gen_ai.provider.name"] == "llama_cpp"
        assert attrs["gen_ai.request.model"] == settings.model_path.name
        assert attrs["dure.llm.role"] in ("fast", "smart")
    spent: dict[str, list[int]] = {}
    for call in calls:
        attrs = call.attributes or {}
        node = spent.setdefault(str(attrs["dure.node"]), [0, 0])
        node[0] += int(str(attrs["gen_ai.usage.input_tokens"]))
        node[1] += int(str(attrs["gen_ai.usage.output_tokens"]))
    assert spent == {
        n: [u.prompt_tokens, u.completion_tokens] for n, u in done.usage.by_node.items()
    }
    (tool,) = [s for s in finished if s.name == "execute_tool calculator"]
    assert (tool.attributes or {})["dure.node"] == "tools"
    assert REGISTRY.get_sample_value("dure_llm_queue_depth") == 0
