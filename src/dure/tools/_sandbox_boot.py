"""The first code `python_repl`'s sandboxed interpreter runs: `python -I -S -c <this file> CFG`.

Standard library only, self-contained: the parent passes this file's text with `-c` and a JSON
configuration as `argv[1]`. bubblewrap has confined the process already (its own namespaces,
a root of read-only binds and a scratch tmpfs, no_new_privs). Before the user's code:

1. Leave uid 0 when the server runs as root: bwrap kept CAP_SETUID and CAP_SETGID for this
   step alone, and changing every uid and gid away from 0 clears them.
2. Set the rlimits from inside, so that RLIMIT_NPROC counts the unprivileged uid.
3. Run `main.py` from the scratch dir (the working directory).
"""

import json
import os
import resource
import runpy
import sys
import traceback


def drop_root(uid):
    """Become `uid` (and its gid, no supplementary groups) if still root; refuse to go on as root."""
    if os.getuid() == 0 or os.geteuid() == 0:
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
    if 0 in os.getresuid() or 0 in os.getresgid():
        raise SystemExit("sandbox: still root")


def apply_limits(cfg):
    """Hard and soft OS limits for this process and anything it starts."""
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


def run_user_code(main_path):
    """Run `main.py` as `__main__`; a traceback shows only the user's own frames."""
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
    """Privileges, limits, then the user's code."""
    cfg = json.loads(sys.argv[1])
    drop_root(cfg["uid"])
    apply_limits(cfg)
    run_user_code("main.py")


if __name__ == "__main__":  # `python -c` runs it as __main__
    main()
