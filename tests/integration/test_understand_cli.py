"""`dure understand …` as a user runs it: one message, or a JSONL batch with bad lines in it.

Only rule-decided messages here, and the provider points at a closed loopback port: a model
call would fail the test. The model tier is covered in tests/unit/korean.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from demo_agent import cli_env, run_dure


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return cli_env(
        tmp_path / "data",
        DURE_PROVIDER="openai",
        DURE_BASE_URL="http://127.0.0.1:9/v1",
        DURE_MAX_RETRIES="0",
    )


def test_a_batch_answers_every_line_and_reports_bad_ones(env, tmp_path: Path) -> None:
    lines = [
        {"id": "a", "message": "안녕하세요!", "history": []},
        "not json",
        {
            "id": "c",
            "message": "그 조항 다시 설명해줘",
            "history": [
                {"role": "user", "content": "제5조 뭐야"},
                {"role": "assistant", "content": "대금 지급 조항입니다."},
            ],
        },
        {"id": "d"},
        {"id": "e", "message": "제십오조 보여줘", "history": "아님"},
    ]
    path = tmp_path / "in.jsonl"
    path.write_text(
        "\n".join(x if isinstance(x, str) else json.dumps(x, ensure_ascii=False) for x in lines),
        encoding="utf-8",
    )
    result = run_dure("understand", "followup", "--input", str(path), "--json", env=env)
    assert result.returncode == 0, result.stderr
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert [r["id"] for r in rows] == ["a", 2, "c", "d", "e"]
    assert rows[0] == {"id": "a", "refers_to_previous": False, "decided_by": "rule"}
    assert "error" in rows[1] and "error" in rows[3] and "history" in rows[4]["error"]
    assert rows[2] == {"id": "c", "refers_to_previous": True, "decided_by": "rule"}


@pytest.mark.parametrize(
    ("decision", "message", "expected"),
    [
        ("scope", "제십오조 보여줘", {"in_scope": True, "kind": "contract", "decided_by": "rule"}),
        ("scope", "안녕하세요", {"in_scope": True, "kind": "smalltalk", "decided_by": "rule"}),
        ("intent", "고마워요 ㅎㅎ", {"intent": "chitchat", "needs_tool": False}),
        ("route", "123 * 456 계산해줘", {"route": "agent", "decided_by": "rule"}),
    ],
)
def test_one_message(env, decision: str, message: str, expected: dict) -> None:
    result = run_dure("understand", decision, message, "--json", env=env)
    assert result.returncode == 0, result.stderr
    got = json.loads(result.stdout)
    assert {k: got[k] for k in expected} == expected


def test_neither_a_message_nor_a_file_is_a_clear_error(env) -> None:
    result = run_dure("understand", "scope", env=env)
    assert result.returncode == 2
    assert "--input" in result.stderr and "Traceback" not in result.stderr
