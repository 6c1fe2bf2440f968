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


def _env(tmp_path: Path) -> dict[str, str]:
    model = os.environ.get("DURE_LOCAL__PATH") or str(Settings().model_path)
    return {
        **os.environ,
        "DURE_DATA_DIR": str(tmp_path),
        "DURE_LOCAL__PATH": model,
        "DURE_ENABLE_CACHE": "false",
    }


def _ask(env: dict[str, str], question: str, *extra: str) -> list[dict]:
    dure = str(Path(sys.executable).parent / "dure")
    proc = subprocess.run(
        [
            dure,
            "ask",
            "--agent",
            "contract",
            "--contract",
            str(SOFTWARE),
            *extra,
            question,
            "--json",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=580,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]


@pytest.mark.local_model
def test_ask_by_number_streams_sources_with_the_article(tmp_path):
    env = _env(tmp_path)
    events = _ask(env, "제5조 내용이 뭐야?")
    kinds = [e["type"] for e in events]
    assert "error" not in kinds, events
    retrieved, cited = [e for e in events if e["type"] == "sources"]
    assert (retrieved["stage"], cited["stage"]) == ("retrieved", "cited")
    for sources in (retrieved["content"], cited["content"]):
        assert any(s["article_no"] == "제5조" and s["kind"] == "contract" for s in sources)
    # The article is on screen before the model writes; the cited list comes last.
    first, last = kinds.index("sources"), len(kinds) - 1 - kinds[::-1].index("sources")
    assert kinds.index("generating") < first < kinds.index("token") < last
    done = events[-1]
    assert done["type"] == "done" and done["content"].strip()
    assert any(s["article_no"] == "제5조" for s in done["sources"])


@pytest.mark.local_model
def test_seed_000_example_is_answered_from_the_previous_turn_without_a_tool(tmp_path):
    env = _env(tmp_path)
    first = _ask(env, "제5조의2 내용이 뭐야?", "--thread", "seed")
    assert first[-1]["type"] == "done" and "제22조" in first[-1]["sources"][0]["text"]
    events = _ask(env, "그 참조항목들 내용 정리해서 보여줘봐", "--thread", "seed")
    kinds = [e["type"] for e in events]
    assert "error" not in kinds and "tool_selected" not in kinds, events
    done = events[-1]
    assert done["content"].strip()
    assert done["usage"]["llm_calls"] == 1  # respond only: scope and previous turn by rule
    assert [s["article_no"] for s in done["sources"]] == ["제5조의2"]
