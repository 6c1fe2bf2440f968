"""`dure tools call`: one tool through the real command, python_repl's sandbox included."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

DURE = str(Path(sys.executable).with_name("dure"))


def dure(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("DURE_")}
    base |= {"DURE_DATA_DIR": str(tmp_path / "data"), "DURE_CONFIG": str(tmp_path / "none.toml")}
    return subprocess.run(
        [DURE, *args], env=base | env, capture_output=True, text=True, timeout=120
    )


def test_python_repl_runs_sandboxed_from_the_command_line(tmp_path: Path) -> None:
    code = "import os\nprint(os.getuid())\nsorted(os.listdir('/'))"
    result = dure(
        tmp_path, "tools", "call", "python_repl", "--args", json.dumps({"code": code}), "--json"
    )
    assert result.returncode == 0, result.stderr
    reply = json.loads(result.stdout)
    assert reply["ok"] is True
    uid, listing = reply["content"].splitlines()
    assert uid == "65534" and "'work'" not in listing and "'root'" not in listing


def test_without_bubblewrap_the_tool_answers_why(tmp_path: Path) -> None:
    result = dure(
        tmp_path,
        *("tools", "call", "python_repl", "--args", '{"code": "print(1)"}'),
        DURE_ASSISTANT__PYTHON__BWRAP="no-such-bwrap",
    )
    assert result.returncode == 1
    assert result.stdout.strip() == (
        "Python 실행 도구를 쓸 수 없습니다: bubblewrap(bwrap)이 설치되어 있지 않습니다 — "
        "Debian/Ubuntu: sudo apt-get install bubblewrap"
    )


def test_bad_arguments_are_one_line(tmp_path: Path) -> None:
    result = dure(tmp_path, "tools", "call", "python_repl", "--args", '{"code"')
    assert result.returncode == 2
    assert result.stderr.strip().startswith("오류: --args가 올바른 JSON이 아닙니다")
    assert "Traceback" not in result.stderr


def test_approvals_from_the_settings_apply_as_to_the_assistant(tmp_path: Path) -> None:
    """`ask` needs --approve (no terminal to ask on here), `deny` never runs."""
    call = ("tools", "call", "python_repl", "--args", '{"code": "print(7)"}', "--json")
    asked = dure(tmp_path, *call, DURE_APPROVALS__ASSISTANT__PYTHON_REPL="ask")
    assert asked.returncode == 2 and "--approve" in asked.stderr
    approved = dure(tmp_path, *call, "--approve", DURE_APPROVALS__ASSISTANT__PYTHON_REPL="ask")
    assert approved.returncode == 0 and json.loads(approved.stdout)["content"].strip() == "7"
    denied = dure(tmp_path, *call, "--approve", DURE_APPROVALS__ASSISTANT__PYTHON_REPL="deny")
    assert denied.returncode == 1 and "허용하지 않습니다" in json.loads(denied.stdout)["content"]
