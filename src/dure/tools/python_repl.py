"""The `python_repl` tool: run a snippet of Python in a sandboxed process and show its output.

Each call is a fresh interpreter (nothing carries over between calls). Like a REPL, the value
of a final bare expression is printed. Limits (CPU, memory, wall clock, output, processes,
runs at once) come from `settings.assistant.python`; `dure.tools.sandbox` confines the run.
Where the sandbox cannot be set up, the tool answers why, in Korean, and runs nothing.
"""

from __future__ import annotations

import ast
import signal

from pydantic import BaseModel, Field

from dure.settings import PythonSandboxSettings, Settings
from dure.telemetry import metrics
from dure.tools.base import Tool, ToolResult
from dure.tools.sandbox import Limits, RunResult, SandboxError, run_python

MAX_CODE_CHARS = 20_000
_SHOW = "__dure_value__"


def with_echo(code: str) -> str:
    """`code` with its final bare expression printed (REPL style), the rest untouched.

    Raises `SyntaxError` for code that does not parse (the caller reports it).
    """
    tree = ast.parse(code)
    if not tree.body or not isinstance(tree.body[-1], ast.Expr):
        return code
    last = tree.body[-1]
    lines = code.splitlines(keepends=True)
    # col_offset counts UTF-8 bytes; slice the line's bytes to find where the expression starts.
    line = lines[last.lineno - 1].encode()
    head = "".join(lines[: last.lineno - 1]) + line[: last.col_offset].decode()
    expression = ast.get_source_segment(code, last.value) or ""
    tail = "".join(lines[last.end_lineno or last.lineno :])
    sep = "" if not head or head.endswith("\n") else "\n"
    return (
        f"{head}{sep}{_SHOW} = ({expression})\n"
        f"if {_SHOW} is not None:\n    print(repr({_SHOW}))\n{tail}"
    )


def limits_from(cfg: PythonSandboxSettings) -> Limits:
    """Sandbox limits from the settings."""
    return Limits(
        cpu_seconds=cfg.cpu_seconds,
        memory_bytes=cfg.memory_mb * 2**20,
        wall_seconds=cfg.wall_seconds,
        output_chars=cfg.output_chars,
        file_bytes=cfg.file_mb * 2**20,
        scratch_bytes=cfg.scratch_mb * 2**20,
        max_processes=cfg.max_processes,
        max_concurrent=cfg.max_concurrent,
        queue_seconds=cfg.queue_seconds,
    )


# What the sandbox refuses shows up as an ordinary OSError; the last line of a traceback says
# which, and a note says why in Korean.
_REFUSALS = (
    (
        ("ConnectionRefusedError", "Network is unreachable", "gaierror", "name resolution"),
        "샌드박스에는 네트워크가 없습니다.",
    ),
    (("Read-only file system",), "작업 폴더(/tmp) 밖에는 쓸 수 없습니다."),
    (("No space left on device",), "작업 폴더(/tmp)의 용량 한도({scratch}MB)를 넘었습니다."),
)


def describe(result: RunResult, limits: Limits) -> ToolResult:
    """The run as the agent should read it: output, and why it stopped if it was stopped."""
    output = result.output.rstrip()
    notes: list[str] = []
    if result.timed_out:
        notes.append(f"실행 시간이 {limits.wall_seconds:g}초를 넘어 중단했습니다.")
    elif result.signal == signal.SIGXCPU or (
        result.signal == signal.SIGKILL and not result.truncated
    ):
        notes.append(f"CPU 사용 시간 한도({limits.cpu_seconds}초)를 넘어 중단되었습니다.")
    elif output.endswith("MemoryError") or "\nMemoryError" in output[-300:]:
        notes.append(f"메모리 한도({limits.memory_bytes // 2**20}MB)를 넘었습니다.")
    elif result.returncode != 0:
        last = output.rsplit("\n", 1)[-1]
        scratch = limits.scratch_bytes // 2**20
        notes += [
            n.format(scratch=scratch) for marks, n in _REFUSALS if any(m in last for m in marks)
        ]
    if result.truncated:
        notes.append(f"출력이 너무 길어 {limits.output_chars:,}자까지만 보여 줍니다.")
    failed = result.timed_out or result.returncode != 0
    body = output or "(출력 없음)"
    if failed and not notes:
        notes.append(f"실행 중 오류가 발생했습니다 (종료 코드 {result.returncode}).")
    text = body if not notes else f"{body}\n\n" + "\n".join(notes)
    return ToolResult(ok=not failed, content=text)


class PythonArgs(BaseModel):
    """Arguments of `python_repl`."""

    code: str = Field(
        description="실행할 Python 코드 (결과는 print로 출력하거나 마지막 줄에 식을 두세요)"
    )


def python_repl_tool(settings: Settings) -> Tool:
    """The `python_repl` tool with the configured limits."""
    limits = limits_from(settings.assistant.python)
    bwrap = settings.assistant.python.bwrap

    async def python_repl(code: str) -> ToolResult:
        if not code.strip():
            return ToolResult.fail("실행할 코드가 비어 있습니다.")
        if len(code) > MAX_CODE_CHARS:
            return ToolResult.fail(f"코드가 너무 깁니다 (최대 {MAX_CODE_CHARS:,}자).")
        try:
            source = with_echo(code)
        except SyntaxError as e:
            return ToolResult.fail(f"코드 문법 오류 ({e.lineno}번째 줄): {e.msg}")
        try:
            result = await run_python(
                source, limits, bwrap, metrics.SANDBOX_QUEUE.track_inprogress()
            )
        except SandboxError as e:
            metrics.SANDBOX_RUNS.labels(e.outcome).inc()
            return ToolResult.fail(str(e))
        outcome = "timeout" if result.timed_out else "ok" if result.returncode == 0 else "error"
        metrics.SANDBOX_RUNS.labels(outcome).inc()
        return describe(result, limits)

    return Tool(
        name="python_repl",
        description=(
            "Python 코드를 격리된 프로세스에서 실행하고 출력을 돌려줍니다 (표준 라이브러리만, "
            "네트워크·외부 파일 접근 불가, 호출마다 새로 시작)."
        ),
        args_schema=PythonArgs,
        func=python_repl,
        timeout=limits.queue_seconds + limits.wall_seconds + 10,
        effects="Python 코드를 실행합니다",
    )
