"""The first code `python_repl`'s child interpreter runs (`python -I -S -c <this file>`).

Standard library only, self-contained: the parent passes this file's text with `-c` and a
JSON configuration as `argv[1]`. Before any user code it closes the exits in layers:

1. OS limits (`setrlimit`): CPU seconds, address space, file size, open files, processes.
2. OS isolation, where the platform allows it: the pid cgroup the parent made (root only, as
   root ignores `RLIMIT_NPROC`); a new network namespace (no interface but a down loopback);
   a new mount namespace in which every mount but the scratch directory is read-only; then
   no capabilities at all and `no_new_privs`.
3. An audit hook (`sys.addaudithook`) that refuses sockets, new processes, `ctypes`, writes
   outside the scratch directory, reads outside it and the standard library, and the
   introspection that could reach the hook itself. It gives the clear message; the OS
   layers are what hold if it were ever bypassed.

Then the user's `main.py` runs from the scratch directory, which is the working directory.
"""

import json
import os
import resource
import sys

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT = 1, 2, 4, 8, 32
MS_NOATIME, MS_NODIRATIME, MS_BIND, MS_REC, MS_PRIVATE = 1024, 2048, 4096, 16384, 1 << 18
MS_RELATIME, MS_STRICTATIME = 1 << 21, 1 << 24
PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 24, 38, 47, 4
# Per-mount flags a remount must repeat (the kernel refuses to drop locked ones).
_KEPT_FLAGS = {
    "nosuid": MS_NOSUID,
    "nodev": MS_NODEV,
    "noexec": MS_NOEXEC,
    "noatime": MS_NOATIME,
    "nodiratime": MS_NODIRATIME,
    "relatime": MS_RELATIME,
    "strictatime": MS_STRICTATIME,
}


def apply_limits(cfg):
    """Hard and soft OS limits for this process and anything it could start."""
    cpu = cfg["cpu_seconds"]
    limits = {
        resource.RLIMIT_CPU: (cpu, cpu + 1),
        resource.RLIMIT_AS: (cfg["memory_bytes"],) * 2,
        resource.RLIMIT_FSIZE: (cfg["file_bytes"],) * 2,
        resource.RLIMIT_NOFILE: (64, 64),
        resource.RLIMIT_NPROC: (cfg["max_processes"],) * 2,
        resource.RLIMIT_CORE: (0, 0),
    }
    for which, value in limits.items():
        resource.setrlimit(which, value)


def _unescape(field):
    # /proc/self/mountinfo writes space, tab, newline and backslash as octal escapes.
    for code in ("040", "011", "012", "134"):
        field = field.replace("\\" + code, chr(int(code, 8)))
    return field


def _readonly_mounts(libc, scratch):
    """In our own mount namespace: every mount read-only except a bind of the scratch dir."""
    path = scratch.encode()
    if libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None) != 0:
        return
    if libc.mount(path, path, None, MS_BIND, None) != 0:
        return
    with open("/proc/self/mountinfo") as f:
        mounts = [line.split() for line in f]
    for fields in mounts:
        point, options = _unescape(fields[4]), fields[5].split(",")
        if point == scratch:
            continue
        flags = MS_REMOUNT | MS_BIND | MS_RDONLY
        for name in options:
            flags |= _KEPT_FLAGS.get(name, 0)
        libc.mount(None, point.encode(), None, flags, None)


def _write(path, text):
    try:
        with open(path, "w") as f:
            f.write(text)
    except OSError:
        pass


def isolate(cfg):
    """Cgroup, network and mount namespaces, then no privileges; each step as far as allowed."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    root = os.geteuid() == 0
    if cfg.get("cgroup"):
        _write(os.path.join(cfg["cgroup"], "cgroup.procs"), str(os.getpid()))
    uid, gid = os.getuid(), os.getgid()
    base = CLONE_NEWNET if root else CLONE_NEWNET | CLONE_NEWUSER
    if libc.unshare(base | CLONE_NEWNS) == 0:
        if not root:  # map ourselves so files we create keep our ids
            _write("/proc/self/uid_map", f"{uid} {uid} 1")
            _write("/proc/self/setgroups", "deny")
            _write("/proc/self/gid_map", f"{gid} {gid} 1")
        _readonly_mounts(libc, cfg["scratch"])
    else:
        libc.unshare(base)
    libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    for cap in range(64):
        if libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            break

    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [(n, ctypes.c_uint32) for n in ("effective", "permitted", "inheritable")]

    libc.capset(ctypes.byref(Header(0x20080522, 0)), (Data * 2)())


def install_guard(scratch, read_roots):
    """The audit hook. Everything it uses is bound here, so user code cannot swap it out."""
    add_hook = sys.addaudithook
    getcwd = os.getcwd
    fspath = os.fspath
    is_instance, has_attr, any_, len_ = isinstance, hasattr, any, len
    str_, bytes_, int_, text_types = str, bytes, int, (str, bytes)
    denied = PermissionError
    write_flags = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
    scratch_prefix = scratch.rstrip("/") + "/"
    readable = (scratch_prefix, *(r.rstrip("/") + "/" for r in read_roots))
    process_events = frozenset(
        (
            "os.fork",
            "os.forkpty",
            "os.exec",
            "os.posix_spawn",
            "os.spawn",
            "os.system",
            "subprocess.Popen",
            "pty.spawn",
            "os.kill",
            "os.killpg",
            "signal.pthread_kill",
        )
    )
    introspection_events = frozenset(
        (
            "gc.get_objects",
            "gc.get_referrers",
            "gc.get_referents",
            "sys.settrace",
            "sys.setprofile",
            "resource.setrlimit",
            "resource.prlimit",
        )
    )
    blocked_modules = frozenset(("_ctypes", "ctypes", "_posixsubprocess"))
    # Path-taking events that change the file system: every path must be in scratch.
    write_events = frozenset(
        (
            "os.remove",
            "os.rename",
            "os.rmdir",
            "os.mkdir",
            "os.chmod",
            "os.chown",
            "os.truncate",
            "os.utime",
            "os.setxattr",
            "os.removexattr",
        )
    )

    def absolute(path):
        """Lexically normalised absolute path (no symlink can exist: creating one is refused)."""
        if is_instance(path, int_):
            return None  # an already open descriptor
        if is_instance(path, bytes_):
            path = path.decode("utf-8", "surrogateescape")
        elif not is_instance(path, str_):
            path = fspath(path)
            if is_instance(path, bytes_):
                path = path.decode("utf-8", "surrogateescape")
        if not path.startswith("/"):
            path = getcwd() + "/" + path
        parts: list[str] = []
        for part in path.split("/"):
            if part in ("", "."):
                continue
            if part == "..":
                if parts:
                    parts.pop()
            else:
                parts.append(part)
        return "/" + "/".join(parts)

    def inside(path, prefixes):
        return (path + "/").startswith(prefixes)

    def refuse(what):
        raise denied(f"샌드박스에서 허용되지 않는 작업입니다: {what}")

    def hook(event, args):
        if event == "open":
            path = absolute(args[0])
            if path is None:
                return
            flags = args[2] if len_(args) > 2 and is_instance(args[2], int_) else 0
            mode = args[1] if is_instance(args[1], str_) else ""
            writing = flags & write_flags or any_(c in mode for c in "wax+")
            if writing and not inside(path, (scratch_prefix,)):
                refuse(f"작업 폴더 밖에 쓰기 ({path})")
            if not writing and not inside(path, readable):
                refuse(f"작업 폴더 밖의 파일 읽기 ({path})")
        elif event.startswith("socket."):
            refuse("네트워크 접근")
        elif event in process_events:
            refuse("새 프로세스 실행")
        elif event.startswith("ctypes.") or (event == "import" and args[0] in blocked_modules):
            refuse("ctypes/저수준 프로세스 모듈")
        elif event in introspection_events:
            refuse(event)
        elif event in ("os.symlink", "os.link"):
            refuse("링크 만들기")
        elif event in write_events:
            for arg in args:
                if is_instance(arg, text_types) or has_attr(arg, "__fspath__"):
                    path = absolute(arg)
                    if not inside(path, (scratch_prefix,)):
                        refuse(f"작업 폴더 밖의 파일 변경 ({path})")
        elif event in ("os.listdir", "os.scandir"):
            path = absolute(args[0] if args[0] is not None else ".")
            if path is not None and not inside(path, readable):
                refuse(f"작업 폴더 밖의 폴더 보기 ({path})")

    add_hook(hook)


def run_user_code(main_path):
    """Run `main.py` as `__main__`; a traceback shows only the user's own frames."""
    import runpy
    import traceback

    sys.argv = [main_path]
    try:
        runpy.run_path(main_path, run_name="__main__")
    except SystemExit:
        raise
    except BaseException as e:
        te = traceback.TracebackException.from_exception(e)
        te.stack = traceback.StackSummary.from_list(
            [f for f in te.stack if f.filename == main_path]
        )
        sys.stdout.flush()
        sys.stderr.write("".join(te.format()))
        sys.exit(1)


def main():
    """Limits, isolation, guard, then the user's code."""
    cfg = json.loads(sys.argv[1])
    scratch = os.path.realpath(cfg["scratch"])
    cfg["scratch"] = scratch
    # Reads allowed outside scratch: the interpreter's own library, and time-zone data.
    read_roots = [os.path.realpath(p) for p in sys.path if p] + cfg["read_roots"]
    apply_limits(cfg)
    isolate(cfg)
    # Entered after isolation: the working directory must be the writable bind of scratch.
    os.chdir(scratch)
    # ctypes served the isolation; forgetting it makes a user's `import ctypes` reach the hook.
    for name in [m for m in sys.modules if m == "ctypes" or m.startswith(("ctypes.", "_ctypes"))]:
        del sys.modules[name]
    install_guard(scratch, read_roots)
    run_user_code(os.path.join(scratch, "main.py"))


if __name__ == "__main__":  # `python -c` runs it as __main__; tests import it
    main()
