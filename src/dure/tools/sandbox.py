"""Running untrusted Python in a separate, limited process (the parent's side).

The child is `python -I -S` (no site-packages, no user paths, no `PYTHON*` variables) with an
EMPTY environment, a fresh scratch directory as its working directory, and a wall-clock
deadline and output cap enforced here; `_sandbox_boot.py` applies the rest inside the child
before the user's code runs (OS limits, namespaces, no privileges, the audit hook).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

BOOT_SOURCE = (Path(__file__).with_name("_sandbox_boot.py")).read_text(encoding="utf-8")
#: Read-only data the child may open besides its standard library.
READ_ROOTS = ("/usr/share/zoneinfo", "/usr/lib/zoneinfo", "/dev/null", "/dev/urandom")
_CGROUP_BASES = ("/sys/fs/cgroup/pids", "/sys/fs/cgroup")


@dataclass(frozen=True)
class Limits:
    """What one run may use."""

    cpu_seconds: int = 5
    memory_bytes: int = 512 * 2**20
    wall_seconds: float = 10.0
    output_chars: int = 10_000
    file_bytes: int = 10 * 2**20
    max_processes: int = 8


@dataclass(frozen=True)
class RunResult:
    """How a run ended and what it printed (stdout and stderr interleaved)."""

    output: str
    returncode: int
    timed_out: bool = False
    truncated: bool = False

    @property
    def signal(self) -> int | None:
        """The signal that ended the process, if one did."""
        return -self.returncode if self.returncode < 0 else None


class _PidsCgroup:
    """A pid-count cgroup for one run: root ignores `RLIMIT_NPROC`, a cgroup it cannot."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @classmethod
    def create(cls, limit: int) -> _PidsCgroup | None:
        """A new cgroup with `pids.max = limit`, or None where none can be made."""
        if os.geteuid() != 0:
            return None  # RLIMIT_NPROC already binds an ordinary user
        for base in map(Path, _CGROUP_BASES):
            if not (base / "cgroup.procs").exists():
                continue
            path = base / f"dure-sandbox-{uuid.uuid4().hex[:12]}"
            try:
                path.mkdir()
                (path / "pids.max").write_text(str(limit))
                return cls(path)
            except OSError:
                with contextlib.suppress(OSError):
                    path.rmdir()
        return None

    def remove(self) -> None:
        """Kill whatever is left in the cgroup and remove it."""
        deadline = time.monotonic() + 2.0
        while True:
            try:
                pids = (self.path / "cgroup.procs").read_text().split()
            except OSError:
                return
            for pid in pids:
                with contextlib.suppress(OSError):
                    os.kill(int(pid), signal.SIGKILL)
            try:
                self.path.rmdir()
                return
            except OSError:
                if time.monotonic() > deadline:
                    return
                time.sleep(0.02)


def _kill_group(pid: int) -> None:
    with contextlib.suppress(OSError):
        os.killpg(pid, signal.SIGKILL)


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


async def run_python(source: str, limits: Limits) -> RunResult:
    """Run `source` as `main.py` in a fresh sandboxed interpreter and wait for it."""
    scratch = Path(tempfile.mkdtemp(prefix="dure-py-"))
    cgroup = _PidsCgroup.create(limits.max_processes)
    proc: asyncio.subprocess.Process | None = None
    try:
        (scratch / "main.py").write_text(source, encoding="utf-8")
        cfg = {
            "scratch": str(scratch),
            "cpu_seconds": limits.cpu_seconds,
            "memory_bytes": limits.memory_bytes,
            "file_bytes": limits.file_bytes,
            "max_processes": limits.max_processes,
            "cgroup": str(cgroup.path) if cgroup else None,
            "read_roots": [r for r in READ_ROOTS if os.path.exists(r)],
        }
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            *("-I", "-S", "-B", "-X", "utf8", "-c", BOOT_SOURCE, json.dumps(cfg)),
            cwd=scratch,
            env={},  # nothing of the server's environment, secrets included
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,  # its own process group, killed as a whole
        )
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
            _kill_group(proc.pid)
        returncode = await _finish(proc)
        text = output.decode("utf-8", errors="replace").replace(f"{scratch}/", "")
        if len(text) > limits.output_chars:
            text, truncated = text[: limits.output_chars], True
        return RunResult(text, returncode, timed_out=timed_out, truncated=truncated)
    finally:
        if proc is not None and proc.returncode is None:  # cancelled: leave nothing running
            _kill_group(proc.pid)
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
        if cgroup is not None:
            cgroup.remove()
        shutil.rmtree(scratch, ignore_errors=True)
