"""`dure slots parse` through Typer."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from typer.testing import CliRunner

from dure.agents.tasks.commands import register

NOW = "2025-03-05T10:00:00+09:00"


def app() -> typer.Typer:
    root = typer.Typer()
    root.command("noop")(lambda: None)
    register(root)
    return root


def test_parse_one_utterance_as_json() -> None:
    result = CliRunner().invoke(
        app(),
        [
            "slots",
            "parse",
            "을지로에서 2명, 12시 반",
            "--intent",
            "lunch_recommendation",
            "--now",
            NOW,
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == {
        "intent": "lunch_recommendation",
        "slots": {"location": "을지로", "datetime": "2025-03-05T12:30", "party_size": 2},
        "canonical": {"location": "을지로"},
    }


def test_rejected_values_are_reported_with_the_reason() -> None:
    result = CliRunner().invoke(app(), ["slots", "parse", "부산에서 50명", "--now", NOW, "--json"])
    data = json.loads(result.output)
    assert set(data["invalid"]) == {"location", "party_size"}


def test_input_file_answers_each_line(tmp_path: Path) -> None:
    lines = [
        {"id": "a", "utterance": "내일 12시 강남 3명", "now": NOW},
        {"id": "b", "utterance": "회의실 4명 3시부터 5시까지", "now": NOW},
    ]
    path = tmp_path / "in.jsonl"
    path.write_text(
        "\n".join(json.dumps(x, ensure_ascii=False) for x in lines) + "\nnot json\n",
        encoding="utf-8",
    )
    result = CliRunner().invoke(app(), ["slots", "parse", "--input", str(path)])
    answers = [json.loads(line) for line in result.output.splitlines()]
    assert [a["id"] for a in answers] == ["a", "b", 3]
    assert answers[0]["slots"]["datetime"] == "2025-03-06T12:00"
    assert answers[1]["intent"] == "meeting_room_booking"
    assert answers[1]["slots"]["duration_minutes"] == 120
    assert "error" in answers[2]


def test_previous_slots_take_a_correction(tmp_path: Path) -> None:
    previous = {"location": "을지로", "party_size": 3, "datetime": "2025-03-06T12:00"}
    lines = [
        {"id": "fix", "utterance": "3명 말고 4명", "now": NOW, "previous": previous},
        {"id": "day", "utterance": "모레로 바꿔줘", "now": NOW, "previous": previous},
        {"id": "bad", "utterance": "4명", "now": NOW, "previous": ["아님"]},
    ]
    path = tmp_path / "in.jsonl"
    path.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in lines), encoding="utf-8")
    result = CliRunner().invoke(
        app(), ["slots", "parse", "--input", str(path), "--intent", "lunch_recommendation"]
    )
    fix, day, bad = (json.loads(line) for line in result.output.splitlines())
    assert fix["slots"] == {**previous, "party_size": 4}
    assert day["slots"] == {**previous, "datetime": "2025-03-07T12:00"}
    assert bad["id"] == "bad" and "previous" in bad["error"]
