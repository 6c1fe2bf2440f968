"""Telemetry of a real `dure serve`: `/metrics` on two workers — the key it needs, the
exposition format (read by prometheus_client's own parser), turns counted in either worker
added up — and traces exported over OTLP/HTTP to a collector on loopback."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest
from opentelemetry.proto.trace.v1.trace_pb2 import Span
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.samples import Sample

from server_support import ServerProcess, make_key, server_env


async def turns(url: str, headers: dict[str, str], n: int) -> None:
    """`n` one-turn conversations with the scripted `qa` agent, all at once."""

    async def one(client: httpx.AsyncClient, i: int) -> None:
        r = await client.post("/threads", json={"agent": "qa"})
        r = await client.post(f"/threads/{r.json()['id']}/messages", json={"content": f"질문 {i}"})
        assert r.status_code == 200, r.text

    # A connection a request, so that either worker may accept each one.
    fresh = httpx.Limits(max_keepalive_connections=0)
    async with httpx.AsyncClient(base_url=url, headers=headers, timeout=60, limits=fresh) as client:
        await asyncio.gather(*(one(client, i) for i in range(n)))


def turns_by_worker(directory: Path) -> dict[str, float]:
    """Turns each worker process counted, read from its own samples file."""
    counted: dict[str, float] = {}
    for path in directory.glob("counter_*.db"):
        samples = [
            s
            for metric in MultiProcessCollector.merge([str(path)])
            for s in metric.samples
            if s.name == "dure_turns_total"
        ]
        counted[path.stem.removeprefix("counter_")] = sum(s.value for s in samples)
    return counted


def samples(text: str, family: str, name: str) -> list[Sample]:
    families = {f.name: f for f in text_string_to_metric_families(text)}
    return [s for s in families[family].samples if s.name == name]


def test_metrics_need_a_key_parse_and_add_up_both_workers(tmp_path: Path) -> None:
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = server_env(tmp_path / "data", TMPDIR=str(scratch))
    headers = make_key(env)
    with ServerProcess(env, workers=2) as server:
        assert httpx.get(f"{server.url}/metrics").status_code == 401
        (directory,) = scratch.glob("dure-metrics-*")  # made fresh by this server start
        sent = 0
        while sent < 60 and sum(n > 0 for n in turns_by_worker(directory).values()) < 2:
            asyncio.run(turns(server.url, headers, 6))
            sent += 6
        per_worker = turns_by_worker(directory)
        assert sum(n > 0 for n in per_worker.values()) == 2, per_worker

        r = httpx.get(f"{server.url}/metrics", headers=headers)
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
        text = r.text

    ended = samples(text, "dure_turns", "dure_turns_total")
    assert {(s.labels["agent"], s.labels["outcome"]) for s in ended} == {("qa", "ok")}
    assert sum(s.value for s in ended) == sent == sum(per_worker.values())
    calls = samples(text, "dure_llm_calls", "dure_llm_calls_total")
    assert {s.labels["node"] for s in calls} == {"respond"}
    assert sum(s.value for s in calls) == sent
    tokens = samples(text, "dure_llm_tokens", "dure_llm_tokens_total")
    assert {s.labels["type"] for s in tokens} == {"input", "output"}
    assert all(s.value >= sent for s in tokens)
    (count,) = samples(text, "dure_turn_duration_seconds", "dure_turn_duration_seconds_count")
    assert count.value == sent
    buckets = samples(text, "dure_node_duration_seconds", "dure_node_duration_seconds_bucket")
    assert {s.labels["node"] for s in buckets} == {"plan", "respond"}
    in_progress = samples(text, "dure_turns_in_progress", "dure_turns_in_progress")
    assert sum(s.value for s in in_progress) == 0
    assert not list(scratch.glob("dure-metrics-*"))  # removed when the server stopped


@contextmanager
def collector() -> Iterator[tuple[str, list[ExportTraceServiceRequest]]]:
    """An OTLP/HTTP trace receiver on loopback: its URL, and the export requests it got."""
    received: list[ExportTraceServiceRequest] = []

    class Receiver(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            if self.path == "/v1/traces":
                received.append(ExportTraceServiceRequest.FromString(body))
            self.send_response(200 if self.path == "/v1/traces" else 404)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", received
    finally:
        server.shutdown()


def spans(received: list[ExportTraceServiceRequest]) -> list[Span]:
    return [
        span
        for req in list(received)
        for rs in req.resource_spans
        for ss in rs.scope_spans
        for span in ss.spans
    ]


def test_a_turn_is_exported_over_otlp(tmp_path: Path) -> None:
    with collector() as (endpoint, received):
        env = server_env(
            tmp_path / "data",
            OTEL_EXPORTER_OTLP_ENDPOINT=endpoint,
            OTEL_BSP_SCHEDULE_DELAY="100",  # ms: export each batch at once
            DURE_SERVER__AUTH="false",
        )
        with ServerProcess(env) as server:
            r = httpx.post(f"{server.url}/threads", json={"agent": "qa"})
            tid = r.json()["id"]
            r = httpx.post(f"{server.url}/threads/{tid}/messages", json={"content": "보증금은?"})
            assert r.status_code == 200, r.text
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and not any(
                s.name == "invoke_agent qa" for s in spans(received)
            ):
                time.sleep(0.1)
        (resource,) = {
            a.value.string_value
            for req in received
            for rs in req.resource_spans
            for a in rs.resource.attributes
            if a.key == "service.name"
        }
        assert resource == "dure"
        sent = spans(received)
        (turn,) = [s for s in sent if s.name == "invoke_agent qa"]
        names = {s.name for s in sent if s.trace_id == turn.trace_id}
        assert {"plan", "respond", "chat dure-scripted"} <= names
        assert all(s.trace_id == turn.trace_id for s in sent)  # the turn's spans, no other
