"""The contract agent end to end with the real local model, through the `dure` command."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dure.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
SOFTWARE = ROOT / "examples" / "contracts" / "software_dev.md"


@pytest.mark.local_model
def test_ask_by_number_streams_sources_with_the_article(tmp_path):
    model = os.environ.get("DURE_LOCAL__PATH") or str(Settings().model_path)
    env = {
        **os.environ,
        "DURE_DATA_DIR": str(tmp_path),
        "DURE_LOCAL__PATH": model,
        "DURE_ENABLE_CACHE": "false",
        # The assertion is about sources, not prose: a short answer keeps the test quick.
        "DURE_LOCAL__MAX_TOKENS": "64",
    }
    dure = str(Path(sys.executable).parent / "dure")
    proc = subprocess.run(
        [
            dure,
            "ask",
            "--agent",
            "contract",
            "--contract",
            str(SOFTWARE),
            "제5조 내용이 뭐야?",
            "--json",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=580,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    events = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    kinds = [e["type"] for e in events]
    assert "error" not in kinds, events
    sources = next(e for e in events if e["type"] == "sources")["content"]
    assert any(s["article_no"] == "제5조" and s["kind"] == "contract" for s in sources), sources
    assert kinds.index("generating") < kinds.index("token") < kinds.index("sources")
    done = events[-1]
    assert done["type"] == "done" and done["content"].strip()
    assert any(s["article_no"] == "제5조" for s in done["sources"])
