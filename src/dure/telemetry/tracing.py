"""OpenTelemetry traces: on when `OTEL_EXPORTER_OTLP_ENDPOINT` is set, off (and free) otherwise.

A process that already set a global tracer provider (`opentelemetry-instrument`, or an
application embedding Dure) gets Dure's spans there. Otherwise the provider is made once per
process from the standard variables (`OTEL_EXPORTER_OTLP_*`, `OTEL_SERVICE_NAME`,
`OTEL_RESOURCE_ATTRIBUTES`, `OTEL_SDK_DISABLED`) and exports spans over OTLP/HTTP in batches.
A provider may also be handed over (`use_tracer_provider`; tests pass one with an in-memory
exporter). With none of these, Dure makes no span and sets up no exporter.

Span names and attributes follow the OpenTelemetry GenAI semantic conventions where they exist
(`invoke_agent`, `chat`, `execute_tool`; `gen_ai.*`); Dure's own are under `dure.*`. Message
text goes into spans only with `telemetry.capture_content`, and then masked (`dure.privacy`).
"""

from __future__ import annotations

import json
import os
import threading
from typing import TYPE_CHECKING, Any

from dure.privacy import mask_value

if TYPE_CHECKING:
    from opentelemetry.trace import Tracer, TracerProvider

ENDPOINT_VARS = ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")

_lock = threading.Lock()
_configured = False
_tracer: Tracer | None = None


def _from_env() -> Tracer | None:
    if os.environ.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return None
    from opentelemetry import trace

    configured = trace.get_tracer_provider()
    if not isinstance(configured, trace.ProxyTracerProvider | trace.NoOpTracerProvider):
        return _tracer_of(configured)
    if not any(os.environ.get(v, "").strip() for v in ENDPOINT_VARS):
        return None
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider as SdkProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    # `service.name` is "dure" unless OTEL_SERVICE_NAME / OTEL_RESOURCE_ATTRIBUTES name one.
    resource = Resource.create()
    if str(resource.attributes.get("service.name", "")).startswith("unknown_service"):
        resource = resource.merge(Resource({"service.name": "dure"}))
    provider = SdkProvider(resource=resource)
    # The exporter reads the endpoint, headers, timeout and compression from the environment.
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    return _tracer_of(provider)


def _tracer_of(provider: TracerProvider) -> Tracer:
    import dure

    return provider.get_tracer("dure", dure.__version__)


def tracer() -> Tracer | None:
    """The process's tracer, or None when tracing is off (made on first use)."""
    global _configured, _tracer
    if not _configured:
        with _lock:
            if not _configured:
                _tracer = _from_env()
                _configured = True
    return _tracer


def use_tracer_provider(provider: TracerProvider | None) -> None:
    """Trace into `provider` from now on (None: tracing off), whatever the environment says."""
    global _configured, _tracer
    with _lock:
        _tracer = _tracer_of(provider) if provider is not None else None
        _configured = True


def content(value: Any) -> str:
    """Message text, tool arguments or results as one span attribute: masked JSON."""
    masked = mask_value(value)
    return masked if isinstance(masked, str) else json.dumps(masked, ensure_ascii=False)


#: LangChain's message types as the GenAI conventions name the roles.
_ROLES = {"human": "user", "ai": "assistant", "system": "system", "tool": "tool"}


def messages(batch: list[Any]) -> str:
    """Chat messages in the GenAI conventions' shape (role and text parts), masked."""
    return content(
        [
            {
                "role": _ROLES.get(getattr(m, "type", ""), "user"),
                "parts": [{"type": "text", "content": str(getattr(m, "content", m))}],
            }
            for m in batch
        ]
    )
