"""`python_repl`: REPL behaviour, the limits of one run, the process-wide cap on runs at once,
and the tool disabled (with the reason, in Korean) where the sandbox cannot be set up.

Every test runs real code in the real bubblewrap sandbox (`scripts/test-deps.sh` installs
it); the ways out of the sandbox are in test_sandbox_escapes.py.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import tempfile
import textwrap
import threading
import time
from pathlib import Path

import pytest

from dure.settings import Settings
from dure.tools.base import ToolRegistry, ToolResult
from dure.tools.python_repl import python_repl_tool, with_echo
from dure.tools.sandbox import sandbox_problem

if sandbox_problem() is not None:  # a missing sandbox must fail the run, not skip it
    pytest.fail(f"{sandbox_problem()} (scripts/test-deps.sh installs it)", pytrace=False)


def _registry(settings: Settings, **limits: object) -> ToolRegistry:
    python = settings.assistant.python.model_copy(update=limits)
    assistant = settings.assistant.model_copy(update={"python": python})
    return ToolRegistry([python_repl_tool(settings.model_copy(update={"assistant": assistant}))])


async def run(settings: Settings, code: str, **limits: object) -> ToolResult:
    return await _registry(settings, **limits).run("python_repl", {"code": textwrap.dedent(code)})


# --- REPL behaviour --------------------------------------------------------------------------


def test_echo_prints_the_final_expression_only() -> None:
    assert with_echo("x = 1") == "x = 1"
    echoed = with_echo("x = 2\nx * 21")
    assert echoed.startswith("x = 2\n__dure_value__ = (x * 21)\n")
    assert "print(repr(__dure_value__))" in echoed
    assert "__dure_value__ = (y)" in with_echo("y = '가'; y")
    with pytest.raises(SyntaxError):
        with_echo("def (")


async def test_runs_code_and_shows_output(settings: Settings) -> None:
    result = await run(settings, "print('안녕하세요')\nsum(range(101))")
    assert result.ok
    assert result.content == "안녕하세요\n5050"


async def test_standard_library_and_scratch_files_work(settings: Settings) -> None:
    result = await run(
        settings,
        """
        import json, math, statistics, zoneinfo, datetime, pathlib
        pathlib.Path("data.json").write_text(json.dumps({"평균": statistics.mean([1, 2, 3])}))
        print(pathlib.Path("data.json").read_text(), math.isqrt(17))
        print(datetime.datetime(2025, 1, 1, tzinfo=zoneinfo.ZoneInfo("Asia/Seoul")).tzname())
        """,
    )
    assert result.ok, result.content
    assert result.content == '{"\\ud3c9\\uade0": 2} 4\nKST'


async def test_errors_show_the_users_traceback_only(settings: Settings) -> None:
    result = await run(settings, "def f():\n    return 1 / 0\nf()")
    assert not result.ok
    assert "ZeroDivisionError" in result.content
    assert 'File "main.py", line 2, in f' in result.content
    assert "runpy" not in result.content and "_sandbox_boot" not in result.content


async def test_syntax_errors_are_reported_in_korean(settings: Settings) -> None:
    result = await run(settings, "print('x'")
    assert not result.ok and "문법 오류" in result.content


async def test_each_run_starts_fresh(settings: Settings) -> None:
    first = await run(settings, "import os\nopen('kept.txt', 'w').write('x')\nprint(os.getcwd())")
    assert first.content == "/tmp"  # the run's own tmpfs, gone with it
    second = await run(settings, "import os\nos.path.exists('kept.txt')")
    assert second.content == "False"


async def test_processes_inside_the_sandbox_work(settings: Settings) -> None:
    result = await run(
        settings,
        """
        import subprocess, sys
        done = subprocess.run([sys.executable, "-c", "print('자식 프로세스')"], check=True)
        """,
    )
    assert result.ok and result.content == "자식 프로세스", result.content


# --- the limits of one run ------------------------------------------------------------------


async def test_cpu_limit(settings: Settings) -> None:
    result = await run(settings, "while True:\n    pass", cpu_seconds=1, wall_seconds=30)
    assert not result.ok
    assert "CPU 사용 시간 한도(1초)" in result.content


async def test_memory_limit(settings: Settings) -> None:
    for code in ("x = bytearray(1024 ** 3)", "x = []\nwhile True:\n    x.append(' ' * 10**6)"):
        result = await run(settings, code, memory_mb=128)
        assert not result.ok
        assert "메모리 한도(128MB)" in result.content, result.content


async def test_wall_clock_limit_leaves_nothing_running(settings: Settings) -> None:
    marker = f"dure-test-leftover-{os.getpid()}"
    result = await run(
        settings,
        f"""
        import subprocess, sys, time
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)", {marker!r}])
        print('시작', flush=True)
        time.sleep(60)
        """,
        wall_seconds=1,
    )
    assert not result.ok
    assert "실행 시간이 1초를 넘어 중단했습니다" in result.content
    assert result.content.startswith("시작")  # what it printed before is kept
    deadline = time.monotonic() + 5
    while _processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _processes_with(marker) == []


def _processes_with(word: str) -> list[int]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if word.encode() in cmdline and state != "Z":
            found.append(int(pid))
    return found


async def test_output_limit(settings: Settings) -> None:
    result = await run(settings, "while True:\n    print('가' * 1000)", output_chars=2000)
    assert "출력이 너무 길어 2,000자까지만" in result.content, result.content[-300:]
    assert len(result.content) < 2100


async def test_file_size_limit(settings: Settings) -> None:
    result = await run(settings, "open('big.bin', 'wb').write(b'x' * 3 * 2**20)", file_mb=1)
    assert not result.ok and "File too large" in result.content


async def test_scratch_size_limit(settings: Settings) -> None:
    code = "for i in range(10):\n    open(f'part{i}.bin', 'wb').write(b'x' * 2**20)"
    result = await run(settings, code, scratch_mb=4, file_mb=2)
    assert not result.ok and "No space left on device" in result.content, result.content
    assert result.content.endswith("작업 폴더(/tmp)의 용량 한도(4MB)를 넘었습니다.")


async def test_fork_bomb_is_stopped(settings: Settings) -> None:
    result = await run(
        settings,
        """
        import os, time
        children = 0
        try:
            while children < 200:
                if os.fork() == 0:
                    time.sleep(2)
                    os._exit(0)
                children += 1
            print("FORKED", children)
        except OSError as e:
            print("STOPPED", children, e.strerror)
        """,
        max_processes=8,
    )
    assert result.content.startswith("STOPPED"), result.content
    assert int(result.content.split()[1]) < 8


async def test_the_code_is_an_unprivileged_user_with_no_capabilities(settings: Settings) -> None:
    result = await run(
        settings,
        """
        import os
        status = dict(line.split(":", 1) for line in open("/proc/self/status"))
        print(os.getresuid(), os.getresgid(), os.getgroups())
        print([int(status[k], 16) for k in ("CapEff", "CapPrm", "CapAmb")], status["NoNewPrivs"].strip())
        """,
    )
    assert result.content.splitlines() == [
        "(65534, 65534, 65534) (65534, 65534, 65534) []",
        "[0, 0, 0] 1",
    ]


async def test_cannot_see_the_servers_environment(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = "s3cr3t-do-not-leak-7731"
    monkeypatch.setenv("DURE_TEST_SECRET", secret)
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    result = await run(
        settings,
        """
        import os
        print(sorted(os.environ))
        for pid in os.listdir("/proc"):
            if pid.isdigit():
                try:
                    print(pid, open(f"/proc/{pid}/environ", "rb").read())
                except OSError as e:
                    print(pid, "blocked", type(e).__name__)
        """,
    )
    assert secret not in result.content
    assert result.content.splitlines()[0] == "['LC_CTYPE', 'LD_LIBRARY_PATH', 'PWD']" or (
        result.content.splitlines()[0] == "['LC_CTYPE', 'PWD']"  # a system Python in /usr
    )


async def test_everything_outside_scratch_is_read_only(settings: Settings) -> None:
    result = await run(
        settings,
        """
        import os, sys
        for path in (sys.executable, os.__file__, "/usr/lib/evil", "/evil", "/dev/evil"):
            try:
                open(path, "ab").close()
                print(path, "WROTE")
            except OSError as e:
                print(path, "blocked", e.strerror)
        """,
    )
    assert "WROTE" not in result.content and result.content.count("blocked") == 5, result.content


async def test_a_refusal_by_the_os_is_explained_in_korean(settings: Settings) -> None:
    code = "import urllib.request\nurllib.request.urlopen('http://example.com')"
    result = await run(settings, code)
    assert not result.ok and result.content.endswith("샌드박스에는 네트워크가 없습니다.")
    result = await run(settings, "open('/usr/lib/evil.txt', 'w')")
    assert result.content.endswith("작업 폴더(/tmp) 밖에는 쓸 수 없습니다.")


# --- no sandbox, no run -----------------------------------------------------------------------


async def test_without_bwrap_the_tool_says_why_and_runs_nothing(settings: Settings) -> None:
    result = await run(settings, "print(1)", bwrap="no-such-bwrap")
    assert not result.ok
    assert result.content == (
        "Python 실행 도구를 쓸 수 없습니다: bubblewrap(bwrap)이 설치되어 있지 않습니다 — "
        "Debian/Ubuntu: sudo apt-get install bubblewrap"
    )


async def test_without_bwrap_on_path_the_tool_says_why(
    settings: Settings, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    result = await run(settings, "print(1)")
    assert not result.ok and "bubblewrap(bwrap)이 설치되어 있지 않습니다" in result.content


def _fake_bwrap(tmp_path: Path, body: str) -> str:
    path = tmp_path / "bwrap"
    path.write_text(f"#!{sys.executable}\n{textwrap.dedent(body)}")
    path.chmod(0o755)
    return str(path)


async def test_a_bwrap_that_cannot_make_namespaces_disables_the_tool(
    settings: Settings, tmp_path: Path
) -> None:
    bwrap = _fake_bwrap(
        tmp_path,
        """
        import sys
        sys.stderr.write("bwrap: No permissions to create new namespace\\n")
        sys.exit(1)
        """,
    )
    result = await run(settings, "print(1)", bwrap=bwrap)
    assert result.content == (
        "Python 실행 도구를 쓸 수 없습니다: bubblewrap으로 격리 환경을 만들 수 없습니다 "
        "(bwrap: No permissions to create new namespace)"
    )


async def test_a_bwrap_that_isolates_nothing_is_caught(settings: Settings, tmp_path: Path) -> None:
    # Runs the command as nobody but in no namespace at all (with the system's Python, which
    # nobody can read): the self-test sees it and the tool stays off rather than running code
    # in a weaker sandbox.
    here = Path(tempfile.mkdtemp(prefix="dure-fake-bwrap-"))  # /tmp: reachable by nobody
    here.chmod(0o755)
    bwrap = _fake_bwrap(
        tmp_path,
        f"""
        import os, sys
        args = sys.argv[1:]
        options, command = args[: args.index("--")], args[args.index("--") + 1 :]
        source = os.read(int(options[options.index("--file") + 1]), 1 << 20)
        open({str(here / "main.py")!r}, "wb").write(source)
        os.chdir({str(here)!r})
        os.setgroups([])
        os.setresgid(65534, 65534, 65534)
        os.setresuid(65534, 65534, 65534)
        os.execv("/usr/bin/python3", ["python3", *command[1:]])
        """,
    )
    try:
        result = await run(settings, "print(1)", bwrap=bwrap)
    finally:
        shutil.rmtree(here)
    assert not result.ok
    assert result.content.startswith(
        "Python 실행 도구를 쓸 수 없습니다: bubblewrap으로 격리 환경을 만들 수 없습니다 (격리 부족: "
    ), result.content
    assert "pid namespace" in result.content and "network namespace" in result.content


# --- how many run at once -----------------------------------------------------------------------


async def test_runs_beyond_the_cap_wait_their_turn(settings: Settings) -> None:
    # The monotonic clock is the host's inside the sandbox too: each run reports when it ran.
    slow = "import time\nstart = time.monotonic()\ntime.sleep(0.5)\nprint(start, time.monotonic())"
    results = await asyncio.gather(
        *(run(settings, slow, max_concurrent=1, queue_seconds=30) for _ in range(3))
    )
    assert all(r.ok for r in results)
    spans = sorted(tuple(map(float, r.content.split())) for r in results)
    assert all(later[0] >= earlier[1] for earlier, later in zip(spans, spans[1:], strict=False))


async def test_a_run_that_waits_too_long_gets_a_clear_error(settings: Settings) -> None:
    slow = run(settings, "import time\ntime.sleep(3)", max_concurrent=1, queue_seconds=0)
    first = asyncio.ensure_future(slow)
    await asyncio.sleep(0.3)
    second = await run(settings, "print(1)", max_concurrent=1, queue_seconds=0.5)
    assert not second.ok
    assert second.content == (
        "Python 실행이 밀려 있습니다: 동시에 1개까지 실행하는데 0.5초를 기다려도 차례가 "
        "오지 않았습니다. 잠시 후 다시 시도하세요."
    )
    assert (await first).ok


async def test_the_cap_holds_across_threads_and_event_loops(settings: Settings) -> None:
    # The CLI's asyncio.run and the server's loop are different loops: one count for both.
    other: list[ToolResult] = []
    thread = threading.Thread(
        target=lambda: other.append(
            asyncio.run(run(settings, "import time\ntime.sleep(2)", max_concurrent=1))
        )
    )
    thread.start()
    await asyncio.sleep(0.5)
    here = await run(settings, "print(1)", max_concurrent=1, queue_seconds=0.3)
    thread.join()
    assert other[0].ok
    assert not here.ok and "Python 실행이 밀려 있습니다" in here.content
