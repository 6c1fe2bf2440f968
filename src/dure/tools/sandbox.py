"""Running untrusted Python confined by the operating system (the parent's side).

Each run is a fresh `python -I -S` started by bubblewrap (`bwrap`) in its own PID, mount,
network, IPC and UTS namespaces, on a root filesystem of read-only binds of the interpreter,
its standard library and the system's shared libraries, a new `/proc` and `/dev`, and a
size-capped tmpfs scratch dir — nothing else of the host (not the data dir, not `/etc`). The
network namespace holds only loopback; the PID namespace cannot see the server or other runs;
`--die-with-parent` ends the run when the server dies. The code runs as `nobody` with no
capabilities and no_new_privs: a non-root server gets that from a user namespace; a root one
lets bwrap set up as root (a user namespace would map the sandbox to root outside) and
`_sandbox_boot.py` leaves uid 0 before anything else. Rlimits bound CPU, memory, file size and
processes; a process-wide queue (`_run_slots`) bounds how many run at once.

Where bwrap is missing or cannot build all of that, runs are refused with a Korean reason
(`sandbox_problem`, also shown by `dure doctor`): there is no weaker fallback.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

from dure.tools._run_slots import SLOTS

BOOT_SOURCE = Path(__file__).with_name("_sandbox_boot.py").read_text(encoding="utf-8")
SANDBOX_UID = 65534  # nobody
PYTHON_DIR = "/python"  # where an interpreter from outside /usr is mounted
SCRATCH = "/tmp"  # the run's tmpfs and working directory; tempfile uses it too
ZONEINFO = "/usr/share/zoneinfo"
INSTALL_HINT = "Debian/Ubuntu: sudo apt-get install bubblewrap"


@dataclass(frozen=True)
class Limits:
    """What one run may use, and how many runs may go at once in this process."""

    cpu_seconds: int = 5
    memory_bytes: int = 512 * 2**20
    wall_seconds: float = 10.0
    output_chars: int = 10_000
    file_bytes: int = 10 * 2**20
    scratch_bytes: int = 32 * 2**20
    max_processes: int = 8
    max_concurrent: int = 2
    queue_seconds: float = 10.0


@dataclass(frozen=True)
class RunResult:
    """How a run ended and what it printed (stdout and stderr interleaved)."""

    output: str
    returncode: int
    timed_out: bool = False
    truncated: bool = False

    @property
    def signal(self) -> int | None:
        """The signal that ended the code, if one did (bwrap reports signal N as exit 128+N)."""
        if self.returncode < 0:
            return -self.returncode
        return self.returncode - 128 if self.returncode > 128 else None


class SandboxError(RuntimeError):
    """A run that could not start; the message is Korean, for the user. `outcome` says why:
    "unavailable" (no working sandbox here) or "busy" (no slot came free in time)."""

    def __init__(self, message: str, outcome: str) -> None:
        super().__init__(message)
        self.outcome = outcome


@dataclass(frozen=True)
class _Interpreter:
    """The interpreter running Dure, as the sandbox sees it."""

    binds: tuple[str, ...]  # bwrap arguments mounting it
    executable: str  # its path inside
    env: tuple[str, ...]  # bwrap --setenv arguments


@functools.cache
def _interpreter() -> _Interpreter:
    prefix = os.path.realpath(sys.base_prefix)
    exe = os.path.realpath(getattr(sys, "_base_executable", sys.executable))
    if prefix == "/usr":  # the system's: its standard library is under /usr/lib, mounted anyway
        return _Interpreter(("--ro-bind", exe, exe), exe, ())
    # Elsewhere (pyenv, uv, conda, /usr/local) the whole prefix, at a path that says nothing of
    # the host. A shared libpython is found through the library path: the build's RUNPATH
    # names the host's path.
    binds: tuple[str, ...] = ("--ro-bind", prefix, PYTHON_DIR)
    inside = f"{PYTHON_DIR}/{os.path.relpath(exe, prefix)}"
    if not exe.startswith(prefix + "/"):
        inside = f"{PYTHON_DIR}/bin/{os.path.basename(exe)}"
        binds += ("--ro-bind", exe, inside)
    return _Interpreter(binds, inside, ("--setenv", "LD_LIBRARY_PATH", f"{PYTHON_DIR}/lib"))


def _root_fs(interpreter: _Interpreter) -> list[str]:
    """bwrap arguments for the sandbox's root: shared libraries, zone data, the interpreter."""
    # bwrap makes missing parents of a mount point mode 0700 when it runs as root: unreadable
    # once the code is `nobody`. They are made here first, world-readable.
    args = ["--perms", "0755", "--dir", "/usr"]
    for name in ("lib", "lib32", "lib64", "libx32"):
        usr, top = f"/usr/{name}", f"/{name}"
        if os.path.isdir(usr):
            args += ["--ro-bind", usr, usr]
        if os.path.islink(top):  # merged /usr: /lib -> usr/lib
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    if os.path.isdir(ZONEINFO):
        args += ["--perms", "0755", "--dir", "/usr/share", "--ro-bind", ZONEINFO, ZONEINFO]
    if interpreter.executable.startswith("/usr/bin/"):
        args += ["--perms", "0755", "--dir", "/usr/bin"]
    return args + list(interpreter.binds)


def command(bwrap: str, limits: Limits, main_fd: int) -> list[str]:
    """The bwrap command line of one run whose `main.py` is read from `main_fd`."""
    interpreter = _interpreter()
    if os.geteuid() == 0:
        # Set up as root without a user namespace; the boot's first step leaves uid 0.
        identity = ["--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    else:
        uid = str(SANDBOX_UID)
        identity = ["--unshare-user", "--uid", uid, "--gid", uid, "--disable-userns"]
    cfg = {
        "uid": SANDBOX_UID,
        "cpu_seconds": limits.cpu_seconds,
        "memory_bytes": limits.memory_bytes,
        "file_bytes": limits.file_bytes,
        "max_processes": limits.max_processes,
    }
    return [
        bwrap,
        *("--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts"),
        "--unshare-cgroup-try",
        *identity,
        *("--die-with-parent", "--new-session", "--clearenv", "--hostname", "sandbox"),
        *_root_fs(interpreter),
        *("--proc", "/proc", "--dev", "/dev"),
        *("--size", str(limits.scratch_bytes), "--perms", "1777", "--tmpfs", SCRATCH),
        *("--file", str(main_fd), f"{SCRATCH}/main.py", "--chdir", SCRATCH),
        *interpreter.env,
        "--",
        *(interpreter.executable, "-I", "-S", "-B", "-X", "utf8", "-c", BOOT_SOURCE),
        json.dumps(cfg),
    ]


def _main_file(source: str) -> int:
    """An anonymous file holding `source`, rewound, for bwrap's `--file`."""
    fd = os.memfd_create("main.py", os.MFD_CLOEXEC)
    os.write(fd, source.encode("utf-8"))
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


# What the first run of each bwrap checks from inside, so a bwrap that set up less than asked
# (an option ignored, a namespace it could not make) never runs anyone's code.
_SELF_TEST = textwrap.dedent(
    """
    import os
    status = dict(line.split(":", 1) for line in open("/proc/self/status"))
    interfaces = [line.split(":")[0].strip() for line in list(open("/proc/self/net/dev"))[2:]]
    checks = {
        "uid": 0 not in os.getresuid() + os.getresgid(),
        "capabilities": all(int(status[k], 16) == 0 for k in ("CapEff", "CapPrm", "CapAmb")),
        "no_new_privs": status["NoNewPrivs"].strip() == "1",
        "pid namespace": os.getpid() <= 2,
        "network namespace": interfaces == ["lo"],
        "root": sorted(os.listdir("/")) == sorted({ROOT}),
    }
    failed = [name for name, ok in checks.items() if not ok]
    print("격리 확인" if not failed else "격리 부족: " + ", ".join(failed))
    """
)
_verified: set[str] = set()


def _expected_root() -> set[str]:
    names = {"usr", "proc", "dev", SCRATCH.strip("/")}
    names |= {n for n in ("lib", "lib32", "lib64", "libx32") if os.path.lexists(f"/{n}")}
    if any(arg == PYTHON_DIR for arg in _interpreter().binds):
        names.add(PYTHON_DIR.strip("/"))
    return names


def sandbox_problem(bwrap: str = "bwrap") -> str | None:
    """Why `python_repl` cannot run here (Korean, one line), or None when the sandbox works.

    The first success is remembered; a failure is checked again next time (bwrap installed
    while the server runs is picked up).
    """
    path = shutil.which(bwrap)
    if path is None:
        return f"bubblewrap(bwrap)이 설치되어 있지 않습니다 — {INSTALL_HINT}"
    if path in _verified:
        return None
    probe = _SELF_TEST.replace("{ROOT}", repr(_expected_root()))
    fd = _main_file(probe)
    try:
        done = subprocess.run(
            command(path, Limits(), fd),
            pass_fds=(fd,),
            env={},
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"bubblewrap({path})을 실행할 수 없습니다: {e}"
    finally:
        os.close(fd)
    out = (done.stdout + done.stderr).decode("utf-8", errors="replace").strip()
    if done.returncode == 0 and out == "격리 확인":
        _verified.add(path)
        return None
    detail = out.splitlines()[-1] if out else f"종료 코드 {done.returncode}"
    return f"bubblewrap으로 격리 환경을 만들 수 없습니다 ({detail})"


async def _read_capped(stream: asyncio.StreamReader, buffer: bytearray, cap: int) -> bool:
    """Read into `buffer` until EOF (False) or until more than `cap` bytes came (True)."""
    while chunk := await stream.read(65536):
        buffer += chunk
        if len(buffer) > cap:
            del buffer[cap:]
            return True
    return False


async def _finish(proc: asyncio.subprocess.Process, grace: float = 5.0) -> int:
    """The exit code, once the process is gone.

    asyncio's `wait()` returns only after the output pipe closes, and a reader paused by flow
    control (we stopped reading at the cap) never sees it close: read the rest to EOF first.
    """
    assert proc.stdout is not None
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(proc.stdout.read(), grace)
    try:
        return await asyncio.wait_for(proc.wait(), grace)
    except TimeoutError:  # something still holds the pipe; the process itself has exited
        return proc.returncode if proc.returncode is not None else -signal.SIGKILL


async def _run(bwrap: str, source: str, limits: Limits) -> RunResult:
    fd = _main_file(source)
    try:
        proc = await asyncio.create_subprocess_exec(
            *command(bwrap, limits, fd),
            pass_fds=(fd,),
            env={},  # nothing of the server's environment, secrets included
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
        )
    finally:
        os.close(fd)
    try:
        assert proc.stdout is not None
        # UTF-8 Korean is 3 bytes a character: read enough bytes for the character cap.
        output = bytearray()  # kept on a timeout: what was printed so far is shown
        reading = _read_capped(proc.stdout, output, limits.output_chars * 3)
        timed_out = truncated = False
        try:
            truncated = await asyncio.wait_for(reading, limits.wall_seconds)
        except TimeoutError:
            timed_out = True
        if timed_out or truncated:
            proc.kill()  # bwrap; with it goes its PID namespace, and every process in it
        returncode = await _finish(proc)
        text = output.decode("utf-8", errors="replace")
        if len(text) > limits.output_chars:
            text, truncated = text[: limits.output_chars], True
        return RunResult(text, returncode, timed_out=timed_out, truncated=truncated)
    finally:
        if proc.returncode is None:  # cancelled: leave nothing running
            with contextlib.suppress(ProcessLookupError):
                proc.kill()


async def run_python(
    source: str,
    limits: Limits,
    bwrap: str = "bwrap",
    waiting: contextlib.AbstractContextManager[object] | None = None,
) -> RunResult:
    """Run `source` as `main.py` in a fresh sandbox, once one of the process's slots is free;
    `waiting` is entered while the run waits for its slot (the caller's queue-depth gauge —
    this module needs nothing beyond the standard library, so it runs from a bare copy).

    Raises `SandboxError` when there is no working sandbox here, or when no slot came free
    within `limits.queue_seconds`.
    """
    path = shutil.which(bwrap)
    if path is None or path not in _verified:
        problem = await asyncio.to_thread(sandbox_problem, bwrap)
        if problem is not None:
            raise SandboxError(f"Python 실행 도구를 쓸 수 없습니다: {problem}", "unavailable")
        path = shutil.which(bwrap) or bwrap
    with waiting or contextlib.nullcontext():
        acquired = await SLOTS.acquire(limits.max_concurrent, limits.queue_seconds)
    if not acquired:
        raise SandboxError(
            f"Python 실행이 밀려 있습니다: 동시에 {limits.max_concurrent}개까지 실행하는데 "
            f"{limits.queue_seconds:g}초를 기다려도 차례가 오지 않았습니다. 잠시 후 다시 시도하세요.",
            "busy",
        )
    try:
        result = await _run(path, source, limits)
    finally:
        SLOTS.release()
    return result
