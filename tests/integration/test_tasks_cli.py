"""The task agent's commands as a user runs them: new processes, real SQLite, no model needed.

The meeting-room conversation below makes no LLM call at all (the gate and the confirmation
are rules), so it runs with the default local provider and no model file.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from demo_agent import cli_env, run_dure
from dure.agents.tasks.prompts import DECLINED

DEV_SET = Path(__file__).parents[1] / "data" / "slots_dev.jsonl"


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return cli_env(tmp_path / "data")


def test_slots_parse_answers_a_whole_file_in_one_process(env: dict[str, str]) -> None:
    result = run_dure("slots", "parse", "--input", str(DEV_SET), env=env)
    assert result.returncode == 0, result.stderr
    gold = [json.loads(line) for line in DEV_SET.read_text(encoding="utf-8").splitlines()]
    answers = [json.loads(line) for line in result.stdout.splitlines()]
    assert [a["id"] for a in answers] == [g["id"] for g in gold]

    # This older set is labelled with canonical values: the answer's `canonical` replaces them.
    # Datetimes come out as local `YYYY-MM-DDTHH:MM`.
    def labelled(slots: dict) -> dict:
        return {k: v[:16] if k == "datetime" else v for k, v in slots.items()}

    exact = sum(
        {**a["slots"], **a["canonical"]} == labelled(g["slots"])
        for a, g in zip(answers, gold, strict=True)
    )
    assert exact / len(gold) >= 0.85


def test_slots_parse_one_utterance(env: dict[str, str]) -> None:
    result = run_dure(
        "slots",
        "parse",
        "아 3명 말고 4명, 2호선 을지로입구역 1번 출구",
        "--intent",
        "lunch_recommendation",
        "--json",
        env=env,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {
        "intent": "lunch_recommendation",
        "slots": {"location": "을지로입구역", "party_size": 4},
        "canonical": {"location": "을지로"},
    }


def test_slots_parse_bad_now_is_one_korean_line(env: dict[str, str]) -> None:
    result = run_dure(
        "slots", "parse", "2명", "--intent", "lunch_recommendation", "--now", "어제", env=env
    )
    assert result.returncode == 2
    assert result.stderr.startswith("오류: --now/now 값이 ISO 날짜·시간이 아닙니다")
    assert "Traceback" not in result.stderr


def test_ask_waits_and_the_next_process_resumes(env: dict[str, str]) -> None:
    first = run_dure(
        "ask", "--agent", "tasks", "--thread", "room", "--json", "내일 오후 2시 회의실 6명", env=env
    )
    assert first.returncode == 0, first.stderr
    events = [json.loads(line) for line in first.stdout.splitlines()]
    assert [e["type"] for e in events if e["type"] in ("slots", "question")] == [
        "slots",
        "question",
    ]
    rows = next(e["rows"] for e in events if e["type"] == "slots")
    assert [(r["label"], r["value"].split(") ")[-1]) for r in rows] == [
        ("시작 시간", "오후 2시"),
        ("참석 인원", "6명"),
    ]
    assert events[-1]["waiting"] and events[-1]["usage"]["llm_calls"] == 0
    assert "이대로 예약할까요?" in events[-1]["content"]

    second = run_dure("ask", "--agent", "tasks", "--thread", "room", "--json", "아니요", env=env)
    assert second.returncode == 0, second.stderr
    last = json.loads(second.stdout.splitlines()[-1])
    assert last["content"] == DECLINED and not last["waiting"]


def test_chat_with_the_tasks_agent(env: dict[str, str]) -> None:
    result = run_dure(
        "chat", "--agent", "tasks", env=env, stdin="내일 오후 2시 회의실 6명\n아니요\n\n"
    )
    assert result.returncode == 0, result.stderr
    assert "이대로 예약할까요?" in result.stdout
    # the slots as people read them: Korean labels and dates, not `party_size` or ISO times
    assert re.search(
        r"작업 정보: 시작 시간 \d+월 \d+일\(.\) 오후 2시 · 참석 인원 6명", result.stdout
    )
    assert DECLINED in result.stdout
    assert "Traceback" not in result.stdout + result.stderr
