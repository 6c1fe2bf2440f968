"""`dure ask --agent assistant` end to end: the real CLI, the real local model, a real tool.

"123 * 456 계산해줘" is plainly arithmetic, so the agent's first call is bound to the
calculator (a 1.5B model otherwise answers from memory, wrongly); the calculator's result
must reach the answer.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from dure.settings import Settings

DURE = Path(sys.executable).with_name("dure")


@pytest.mark.local_model
@pytest.mark.timeout(1200)  # two local generations; slow only on a crowded machine
def test_ask_the_assistant_with_the_local_model(tmp_path: Path) -> None:
    assert Settings().model_path.exists(), "the local model is missing: run `dure models pull`"
    env = dict(os.environ)  # the installation's model; its own thread database, no LLM cache
    env.update(
        DURE_DATABASE_URL=f"sqlite:///{tmp_path / 'threads.sqlite'}",
        DURE_ENABLE_CACHE="false",
        NO_COLOR="1",
    )
    done = subprocess.run(
        [str(DURE), "ask", "--agent", "assistant", "--json", "123 * 456 계산해줘"],
        env=env,
        capture_output=True,
        text=True,
        timeout=1100,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    results = [e for e in events if e["type"] == "tool_result"]
    assert [(r["tool"], r["ok"], r["content"]) for r in results] == [("calculator", True, "56088")]
    final = events[-1]
    assert final["type"] == "done"
    assert "56088" in re.sub(r"[,\s]", "", final["content"])
    assert final["usage"]["llm_calls"] <= 3  # seed: router 1 + agent 2
