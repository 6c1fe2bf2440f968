"""The type check in `make lint` is strict enough to catch a wrong event field or state key.

The same mypy configuration as `make lint` (pyproject.toml) runs on two small files: one with
a misspelt event field and a state key the agent does not have (must fail, naming both), and
the same code spelt right (must pass), so the failure is the mistakes' and nothing else's.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]

NODE = """
from dure.agents.contract.deps import Deps
from dure.agents.contract.state import ContractState
from dure.events import Thinking, emit


async def summarize(state: ContractState, *, deps: Deps) -> ContractState:
    emit(Thinking({step}="summarize", content="요약 중"))
    return {{"final_response": state["{key}"]}}
"""


def mypy(tmp_path: Path, name: str, source: str) -> subprocess.CompletedProcess[str]:
    path = tmp_path / f"{name}.py"
    path.write_text(source, encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"), str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_a_wrong_event_field_and_a_missing_state_key_fail_the_check(tmp_path: Path) -> None:
    wrong = mypy(tmp_path, "wrong_node", NODE.format(step="stepp", key="user_mesage"))
    assert wrong.returncode == 1, wrong.stdout + wrong.stderr
    assert '"stepp"' in wrong.stdout  # Unexpected keyword argument "stepp" for "Thinking"
    assert '"user_mesage"' in wrong.stdout  # TypedDict "ContractState" has no key "user_mesage"
    right = mypy(tmp_path, "right_node", NODE.format(step="step", key="user_message"))
    assert right.returncode == 0, right.stdout + right.stderr
