"""The adversarial check of `python_repl`: eight ways out, each tried by real code run through
the tool, each must fail.

1. read a file by absolute path          5. signal another process with `kill`
2. read through a directory fd           6. signal another process through a pidfd
3. open another SQLite database          7. open a TCP connection
4. list `/`                              8. outlive its parent

The secret each one goes after is this test's own: a SQLite "conversation" in the data dir, a
process standing in for the server, a listening socket. The checks look at what happened to
it (still secret, still alive, never connected), not at the wording of an error.
"""

from __future__ import annotations

import errno
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from dure.settings import Settings
from dure.tools.base import ToolRegistry, ToolResult
from dure.tools.python_repl import python_repl_tool

SECRET = "다른-키의-대화-7731"


async def run(settings: Settings, code: str) -> ToolResult:
    registry = ToolRegistry([python_repl_tool(settings)])
    return await registry.run("python_repl", {"code": textwrap.dedent(code)})


@pytest.fixture
def conversation(settings: Settings) -> Path:
    """Another key's conversation, where the server keeps them: `dure.sqlite` in the data dir."""
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    path = settings.data_dir / "dure.sqlite"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE messages (key TEXT, content TEXT)")
        db.execute("INSERT INTO messages VALUES ('other-key', ?)", (SECRET,))
    return path


@pytest.fixture
def server() -> Iterator[subprocess.Popen[bytes]]:
    """A process standing in for the server the sandbox must not be able to signal."""
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
    yield proc
    proc.kill()
    proc.wait()


async def test_1_cannot_read_a_file_by_absolute_path(
    settings: Settings, conversation: Path
) -> None:
    result = await run(
        settings,
        f"""
        for path in ({str(conversation)!r}, "/etc/passwd", "/proc/1/environ"):
            try:
                print(path, open(path, "rb").read().hex())
            except OSError as e:
                print(path, "blocked", type(e).__name__)
        """,
    )
    assert SECRET.encode().hex() not in result.content, result.content
    assert b"root:".hex() not in result.content
    assert result.content.count("blocked") == 3, result.content


async def test_2_cannot_read_through_a_directory_fd(settings: Settings, conversation: Path) -> None:
    # A lexical path check resolves a relative path against the working directory; the kernel
    # resolves it against the directory fd. A working directory as deep inside the standard
    # library as the fd's directory is below / makes the two disagree.
    result = await run(
        settings,
        f"""
        import os
        secret = {str(conversation)!r}
        stdlib = os.path.dirname(os.__file__)
        for base in ("/", "/usr/share/zoneinfo", os.path.dirname(stdlib)):
            try:
                fd = os.open(base, os.O_RDONLY | os.O_DIRECTORY)
            except OSError as e:
                print(base, "no fd", type(e).__name__)
                continue
            depth = len([p for p in base.split("/") if p])
            for here, _, _ in os.walk(stdlib):
                if here.count("/") - stdlib.count("/") >= depth:
                    os.chdir(here)
                    break
            try:
                leaked = os.read(os.open("../" * depth + secret.lstrip("/"), os.O_RDONLY, dir_fd=fd), 1 << 16)
                print(base, "LEAKED", leaked.hex())
            except OSError as e:
                print(base, "blocked", type(e).__name__)
        """,
    )
    assert "LEAKED" not in result.content, result.content
    assert SECRET.encode().hex() not in result.content


async def test_3_cannot_open_another_sqlite_database(
    settings: Settings, conversation: Path
) -> None:
    result = await run(
        settings,
        f"""
        import sqlite3
        for uri in ("file:{conversation}?immutable=1", "file:{conversation}?mode=ro"):
            try:
                db = sqlite3.connect(uri, uri=True)
                print(db.execute("SELECT content FROM messages").fetchall())
            except sqlite3.Error as e:
                print("blocked", e)
        """,
    )
    assert SECRET not in result.content, result.content
    assert result.content.count("blocked") == 2, result.content


async def test_4_listing_root_shows_only_the_sandbox(settings: Settings) -> None:
    result = await run(
        settings,
        f"""
        import os
        print(os.path.exists({str(settings.data_dir)!r}))
        print("\\n".join(sorted(os.listdir("/"))))
        """,
    )
    lines = result.content.splitlines() if result.ok else ["False"]
    assert lines[0] == "False", "the data dir is visible"
    listing = set(lines[1:])
    # The interpreter (at /python when it is not the system's), its libraries and zone data,
    # a fresh /dev and /proc, and the scratch dir: nothing of the host's own tree.
    assert listing <= {"dev", "lib", "lib32", "lib64", "libx32", "proc", "python", "tmp", "usr"}
    assert not listing & {"work", "root", "home", "etc", "var", "opt", "srv", "mnt"}


async def test_5_cannot_signal_another_process_by_kill(
    settings: Settings, server: subprocess.Popen[bytes]
) -> None:
    result = await run(
        settings,
        f"""
        import os, signal
        for pid in ({server.pid}, -1):
            try:
                os.kill(pid, signal.SIGKILL)
                print(pid, "sent")
            except OSError as e:
                print(pid, "blocked", type(e).__name__)
        """,
    )
    time.sleep(0.2)
    assert server.poll() is None, f"the 'server' was killed: {result.content}"
    assert f"{server.pid} blocked" in result.content, result.content


async def test_6_cannot_signal_another_process_by_pidfd(
    settings: Settings, server: subprocess.Popen[bytes]
) -> None:
    result = await run(
        settings,
        f"""
        import os, signal
        try:
            signal.pidfd_send_signal(os.pidfd_open({server.pid}), signal.SIGKILL)
            print("sent")
        except OSError as e:
            print("blocked", type(e).__name__)
        """,
    )
    time.sleep(0.2)
    assert server.poll() is None, f"the 'server' was killed: {result.content}"
    assert "blocked" in result.content, result.content


async def test_7_cannot_open_a_tcp_connection(settings: Settings) -> None:
    listener = socket.create_server(("", 0))  # every address of this host
    listener.settimeout(0.5)
    port = listener.getsockname()[1]
    accepted: list[object] = []

    def accept() -> None:
        while True:
            try:
                accepted.append(listener.accept())
            except TimeoutError:
                continue
            except OSError:
                return

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    # Loopback and the host's own addresses: none is reachable from the sandbox.
    hosts = {"127.0.0.1"}
    try:
        hosts.update(socket.gethostbyname_ex(socket.gethostname())[2])
    except OSError:
        pass
    result = await run(
        settings,
        f"""
        import socket
        for host in {sorted(hosts)!r}:
            try:
                socket.create_connection((host, {port}), timeout=2)
                print(host, "CONNECTED")
            except OSError as e:
                print(host, "blocked", type(e).__name__)
        """,
    )
    listener.close()
    thread.join()
    assert accepted == [] and "CONNECTED" not in result.content, result.content


def _descendants(pid: int) -> set[int]:
    """Every process below `pid`, from /proc."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_8_does_not_outlive_its_parent(settings: Settings) -> None:
    # The "server" is a helper process running the tool; the sandboxed code sleeps. Killing
    # the helper with SIGKILL (no cleanup runs) must take every sandbox process with it.
    helper = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import asyncio\n"
            "from dure.settings import Settings\n"
            "from dure.tools.python_repl import python_repl_tool\n"
            "tool = python_repl_tool(Settings())\n"
            "asyncio.run(tool.func(code='import time\\nprint(1, flush=True)\\ntime.sleep(120)'))\n",
        ],
        env={**os.environ, "DURE_ASSISTANT__PYTHON__WALL_SECONDS": "120"},
    )
    try:
        deadline = time.monotonic() + 30
        sandbox: set[int] = set()
        while time.monotonic() < deadline:
            sandbox = _descendants(helper.pid)
            names = {Path(f"/proc/{p}/comm").read_text().strip() for p in sandbox if _alive(p)}
            if any(n.startswith("python") for n in names):
                break
            time.sleep(0.05)
        assert sandbox, "the sandbox never started"
        time.sleep(0.5)  # into its sleep
        sandbox = _descendants(helper.pid)
        helper.send_signal(signal.SIGKILL)
        helper.wait()
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and any(_alive(p) for p in sandbox):
            time.sleep(0.05)
        survivors = [p for p in sandbox if _alive(p)]
        for pid in survivors:  # leave nothing behind either way
            os.kill(pid, signal.SIGKILL)
        assert survivors == [], "sandbox processes outlived their parent"
    finally:
        helper.kill()
        helper.wait()


def test_a_server_that_is_not_root_gets_the_same_sandbox() -> None:
    # Run as root, bwrap sets up without a user namespace and the boot leaves uid 0. A server
    # run by an ordinary user goes through a user namespace instead: here the sandbox modules
    # run as nobody, with the system's Python (nobody cannot read this venv's).
    system_python = "/usr/bin/python3"
    if not os.access(system_python, os.X_OK):
        pytest.skip("needs the system's python3 to run as another user")
    tools = Path(__file__).parents[3] / "src" / "dure" / "tools"
    package = Path(tempfile.mkdtemp(prefix="dure-nobody-"))
    try:
        package.chmod(0o755)
        (package / "dure" / "tools").mkdir(parents=True)
        (package / "dure" / "__init__.py").touch()
        (package / "dure" / "tools" / "__init__.py").touch()
        for name in ("sandbox.py", "_run_slots.py", "_sandbox_boot.py"):
            (package / "dure" / "tools" / name).symlink_to(tools / name)
        code = """
            import ctypes, os, sys
            print(os.getresuid(), sorted(os.listdir("/")))
            print([line.split(":")[0].strip() for line in list(open("/proc/net/dev"))[2:]])
            libc = ctypes.CDLL(None, use_errno=True)
            print("nested user namespace:", libc.unshare(0x10000000), ctypes.get_errno())
        """
        program = (
            f"import asyncio, sys; sys.path.insert(0, {str(package)!r})\n"
            "from dure.tools.sandbox import Limits, run_python, sandbox_problem\n"
            "print(sandbox_problem())\n"
            f"print(asyncio.run(run_python({textwrap.dedent(code)!r}, Limits())).output.strip())\n"
        )
        done = subprocess.run(
            [system_python, "-I", "-c", program],
            user=65534,
            group=65534,
            extra_groups=[],
            capture_output=True,
            text=True,
            timeout=60,
            env={"PATH": os.environ["PATH"]},
        )
    finally:
        shutil.rmtree(package)
    libs = {n for n in ("lib", "lib32", "lib64", "libx32") if os.path.lexists(f"/{n}")}
    root = sorted({"dev", "proc", "tmp", "usr"} | libs)
    assert done.stdout.splitlines() == [
        "None",
        f"(65534, 65534, 65534) {root}",
        "['lo']",
        f"nested user namespace: -1 {errno.ENOSPC}",  # --disable-userns
    ], done.stdout + done.stderr
