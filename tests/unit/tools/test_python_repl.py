"""`python_repl` security: a separate, limited, isolated process — every escape is refused in
Korean and the next run works as before.

The first tests go through the tool (all layers). The last ones switch the audit hook off
and check that the OS layers alone (network namespace, read-only mounts, process limit)
still hold.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

from dure.settings import Settings
from dure.tools.base import ToolRegistry, ToolResult
from dure.tools.python_repl import python_repl_tool, with_echo
from dure.tools.sandbox import _PidsCgroup

BOOT_DIR = Path(__file__).parents[3] / "src" / "dure" / "tools"


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


async def test_each_run_starts_fresh_and_scratch_is_removed(settings: Settings) -> None:
    first = await run(settings, "import os\nopen('kept.txt', 'w').write('x')\nprint(os.getcwd())")
    scratch = Path(first.content.strip())
    assert scratch.name.startswith("dure-py-") and not scratch.exists()
    second = await run(settings, "import os\nos.path.exists('kept.txt')")
    assert second.content == "False"


# --- every way out is refused, in Korean, and the next run still works ------------------------


async def test_cannot_open_a_socket(settings: Settings) -> None:
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    listener.settimeout(0.5)
    accepted: list[object] = []

    def accept() -> None:
        try:
            accepted.append(listener.accept())
        except OSError:
            pass

    thread = threading.Thread(target=accept)
    thread.start()
    for code in (
        f"import socket\nsocket.create_connection(('127.0.0.1', {port}))",
        f"import urllib.request\nurllib.request.urlopen('http://127.0.0.1:{port}/')",
        "import socket\nsocket.getaddrinfo('example.com', 80)",
        "import socket\nsocket.socket(socket.AF_UNIX).connect('/run/some.sock')",
    ):
        result = await run(settings, code)
        assert not result.ok
        assert "샌드박스에서 허용되지 않는 작업입니다: 네트워크 접근" in result.content
    thread.join()
    listener.close()
    assert accepted == []
    assert (await run(settings, "1 + 1")).content == "2"


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
        print(sorted(k for k in os.environ if k not in ("LC_CTYPE",)))
        for path in (f"/proc/{os.getppid()}/environ", "/proc/1/environ", "/proc/self/environ"):
            try:
                print(path, open(path, "rb").read())
            except OSError as e:
                print(path, "거부:", e)
        """,
    )
    assert secret not in result.content
    assert result.content.splitlines()[0] == "[]"
    assert result.content.count("거부: 샌드박스에서 허용되지 않는 작업입니다") == 3


async def test_cannot_write_outside_scratch(settings: Settings, tmp_path: Path) -> None:
    target = tmp_path / "evil.txt"
    attempts = [
        f"open({str(target)!r}, 'w').write('x')",
        f"import os\nos.open({str(target)!r}, os.O_WRONLY | os.O_CREAT)",
        f"import pathlib\npathlib.Path({str(target)!r}).write_text('x')",
        f"open('../../../../../../..{target}', 'a')",
        f"import os\nopen('ok.txt', 'w').close()\nos.rename('ok.txt', {str(target)!r})",
        f"import os\nos.symlink({str(target)!r}, 'link')",
        f"import os\nos.mkdir({str(tmp_path / 'newdir')!r})",
        f"import os\nos.remove({str(tmp_path / 'keep.txt')!r})",
    ]
    (tmp_path / "keep.txt").write_text("keep")
    for code in attempts:
        result = await run(settings, code)
        assert not result.ok, code
        assert "샌드박스에서 허용되지 않는 작업입니다" in result.content, result.content
    assert not target.exists() and not (tmp_path / "newdir").exists()
    assert (tmp_path / "keep.txt").read_text() == "keep"


async def test_cannot_read_files_outside(settings: Settings, tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_text("TOP-SECRET")
    for path in (tmp_path / "secret.txt", Path("/etc/passwd")):
        result = await run(settings, f"print(open({str(path)!r}).read())")
        assert not result.ok and "작업 폴더 밖의 파일 읽기" in result.content
        assert "TOP-SECRET" not in result.content and "root:" not in result.content


async def test_cannot_start_processes_or_fork_bomb(settings: Settings) -> None:
    for code in (
        "import os\nwhile True:\n    os.fork()",
        "import subprocess\nsubprocess.run(['id'])",
        "import os\nos.system('id')",
        "import os\nos.execv('/bin/sh', ['sh'])",
        "import multiprocessing\nmultiprocessing.Process(target=print).start()",
        "import ctypes\nctypes.CDLL(None).fork()",
        "import os\nos.kill(os.getppid(), 0)",
    ):
        result = await run(settings, code)
        assert not result.ok, code
        assert "샌드박스에서 허용되지 않는 작업입니다" in result.content, result.content
    assert (await run(settings, "'살아 있음'")).content == "'살아 있음'"


async def test_cannot_tamper_with_its_guard(settings: Settings) -> None:
    for code in (
        "import gc\ngc.get_objects()",
        "import sys\nsys.settrace(lambda *a: None)",
        "import resource\nresource.setrlimit(resource.RLIMIT_CPU, (100, 100))",
    ):
        result = await run(settings, code)
        assert not result.ok and "샌드박스에서 허용되지 않는 작업입니다" in result.content


async def test_cpu_limit(settings: Settings) -> None:
    result = await run(settings, "while True:\n    pass", cpu_seconds=1, wall_seconds=30)
    assert not result.ok
    assert "CPU 사용 시간 한도(1초)" in result.content


async def test_memory_limit(settings: Settings) -> None:
    for code in ("x = bytearray(1024 ** 3)", "x = []\nwhile True:\n    x.append(' ' * 10**6)"):
        result = await run(settings, code, memory_mb=128)
        assert not result.ok
        assert "메모리 한도(128MB)" in result.content, result.content


async def test_wall_clock_limit(settings: Settings) -> None:
    result = await run(
        settings, "print('시작', flush=True)\nimport time\ntime.sleep(60)", wall_seconds=1
    )
    assert not result.ok
    assert "실행 시간이 1초를 넘어 중단했습니다" in result.content
    assert result.content.startswith("시작")  # what it printed before is kept


async def test_output_limit(settings: Settings) -> None:
    result = await run(settings, "while True:\n    print('가' * 1000)", output_chars=2000)
    assert "출력이 너무 길어 2,000자까지만" in result.content, result.content[-300:]
    assert len(result.content) < 2100


async def test_file_size_limit(settings: Settings) -> None:
    result = await run(settings, "open('big.bin', 'wb').write(b'x' * 3 * 2**20)", file_mb=1)
    assert not result.ok and "File too large" in result.content


# --- the OS layers hold without the audit hook ----------------------------------------------


def _without_hook(code: str, tmp_path: Path, cgroup: str | None = None) -> str:
    """Run `code` after the boot's limits and isolation but WITHOUT its audit hook."""
    scratch = tmp_path / "scratch"
    scratch.mkdir(exist_ok=True)
    cfg = {
        "scratch": str(scratch),
        "cpu_seconds": 5,
        "memory_bytes": 512 * 2**20,
        "file_bytes": 2**20,
        "max_processes": 8,
        "cgroup": cgroup,
    }
    program = textwrap.dedent(
        f"""
        import os, sys
        sys.path.insert(0, {str(BOOT_DIR)!r})
        import _sandbox_boot as boot
        ns_before = os.stat("/proc/self/ns/net").st_ino
        boot.apply_limits({cfg!r})
        boot.isolate({cfg!r})
        os.chdir({str(scratch)!r})
        print("ISOLATED" if os.stat("/proc/self/ns/net").st_ino != ns_before else "SHARED")
        """
    )
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", program + textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=60,
        env={},
    )
    out = done.stdout + done.stderr
    if out.startswith("SHARED"):
        pytest.fail(f"this platform refused a network namespace: {out}")
    return out


def test_os_layer_network_namespace(tmp_path: Path) -> None:
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    out = _without_hook(
        f"""
        import socket
        try:
            socket.create_connection(("127.0.0.1", {port}), timeout=2)
            print("CONNECTED")
        except OSError as e:
            print("BLOCKED", e.errno)
        """,
        tmp_path,
    )
    listener.close()
    assert "BLOCKED" in out and "CONNECTED" not in out


def test_os_layer_read_only_outside_scratch(tmp_path: Path) -> None:
    target = tmp_path / "evil.txt"
    out = _without_hook(
        f"""
        open("inside.txt", "w").write("ok")
        try:
            open({str(target)!r}, "w").write("x")
            print("WROTE")
        except OSError as e:
            print("BLOCKED", e.strerror)
        """,
        tmp_path,
    )
    assert "BLOCKED Read-only file system" in out
    assert not target.exists()
    assert (tmp_path / "scratch" / "inside.txt").read_text() == "ok"


def test_os_layer_stops_a_fork_bomb(tmp_path: Path) -> None:
    cgroup = _PidsCgroup.create(8)  # root ignores RLIMIT_NPROC; the cgroup binds it
    try:
        out = _without_hook(
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
            tmp_path,
            str(cgroup.path) if cgroup else None,
        )
    finally:
        if cgroup:
            cgroup.remove()
    assert "STOPPED" in out, out
    assert int(out.split("STOPPED")[1].split()[0]) < 8
