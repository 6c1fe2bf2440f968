"""The `dure` command as a user runs it: a new process, real SQLite, the scripted demo agent."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from demo_agent import cli_env, run_dure
from dure.events.stream import BUDGET_MESSAGE


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return cli_env(tmp_path / "data")


def assert_no_traceback(text: str) -> None:
    assert "Traceback" not in text and "Error in " not in text and "Warning" not in text


def test_help_lists_the_commands(env: dict[str, str]) -> None:
    result = run_dure("--help", env=env)
    assert result.returncode == 0
    for command in ("ask", "chat", "agents", "doctor", "models"):
        assert command in result.stdout


def test_agents_lists_the_demo(env: dict[str, str]) -> None:
    result = run_dure("agents", env=env)
    assert result.returncode == 0, result.stderr
    assert ["demo", "이름을 기억하는 데모"] in [
        line.split(None, 1) for line in result.stdout.splitlines()
    ]


def test_unknown_agent_is_one_korean_line_listing_the_known(env: dict[str, str]) -> None:
    name = "no-such-agent-with-a-name-long-enough-to-pass-eighty-columns"
    result = run_dure("ask", "--agent", name, "안녕", env=env)
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr  # not wrapped at a pipe's 80 columns
    assert lines[0].startswith(f"오류: 알 수 없는 에이전트입니다: '{name}' (사용 가능: ")
    assert "demo" in lines[0]
    assert_no_traceback(result.stderr)


def test_error_text_is_never_read_as_markup(env: dict[str, str]) -> None:
    result = run_dure("ask", "--agent", "[/x]", "안녕", env=env)
    assert result.returncode == 2
    assert result.stderr.startswith("오류: 알 수 없는 에이전트입니다: '[/x]' (사용 가능: ")
    assert_no_traceback(result.stderr)


def test_malformed_extra_agents_is_one_line(tmp_path: Path) -> None:
    env = cli_env(tmp_path, DURE_EXTRA_AGENTS="demo")
    result = run_dure("agents", env=env)
    assert result.returncode == 2
    assert result.stderr.strip() == (
        "오류: DURE_EXTRA_AGENTS 항목 형식이 잘못되었습니다: 'demo' (이름=모듈:속성)"
    )


def test_ask_prints_the_streamed_answer_and_thread(env: dict[str, str]) -> None:
    result = run_dure("ask", "--agent", "demo", "--thread", "t1", "내 이름은 민수야", env=env)
    assert result.returncode == 0, result.stderr
    assert "반가워요, 민수님!" in result.stdout
    assert "LLM 호출 1회" in result.stdout
    assert result.stdout.rstrip().endswith("스레드: t1")
    assert_no_traceback(result.stderr)


def test_ask_json_prints_one_event_per_line_ending_in_done(env: dict[str, str]) -> None:
    result = run_dure("ask", "--agent", "demo", "--json", "내 이름은 지수예요", env=env)
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert [e["type"] for e in events][0] == "thinking"
    assert events[-1]["type"] == "done"
    assert {e["type"] for e in events[1:-1]} == {"token"}
    done = events[-1]
    assert done["content"] == "반가워요, 지수님!"
    assert "".join(e["content"] for e in events if e["type"] == "token") == done["content"]
    assert done["usage"]["llm_calls"] == 1
    assert done["usage"]["by_node"]["answer"]["llm_calls"] == 1
    assert done["waiting"] is False


def test_oversized_message_is_a_clear_error(tmp_path: Path) -> None:
    env = cli_env(tmp_path, DURE_MAX_MESSAGE_CHARS="50")
    result = run_dure("ask", "--agent", "demo", "가" * 51, env=env)
    assert result.returncode != 0
    assert "오류: 메시지가 너무 깁니다 (최대 50자)." in result.stderr
    assert_no_traceback(result.stderr + result.stdout)


def test_budget_ends_the_turn_with_an_answer_and_clean_output(tmp_path: Path) -> None:
    env = cli_env(tmp_path, DURE_MAX_LLM_CALLS_PER_TURN="0")
    result = run_dure("ask", "--agent", "demo", "안녕", env=env)
    assert result.returncode == 0
    assert BUDGET_MESSAGE in result.stdout  # the user is told, even without streamed tokens
    assert result.stderr.splitlines() == ["오류: 처리 한도 초과: llm_calls budget of 0 reached"]


def test_a_question_waits_for_the_users_reply(env: dict[str, str]) -> None:
    first = run_dure("ask", "--agent", "demo", "--thread", "q", "내 이름이 뭐야?", env=env)
    assert first.returncode == 0, first.stderr
    assert "아직 이름을 모릅니다. 이름이 무엇인가요?" in first.stdout
    second = run_dure("ask", "--agent", "demo", "--thread", "q", "서연", env=env)
    assert "당신의 이름은 서연입니다." in second.stdout


def test_markup_like_text_is_printed_as_is(env: dict[str, str]) -> None:
    result = run_dure(
        "ask", "--agent", "demo", "--thread", "m", "내 이름은 [bold]철수[/]야", env=env
    )
    assert result.returncode == 0, result.stderr
    assert "반가워요, [bold]철수[/]님!" in result.stdout


def test_chat_keeps_the_thread_across_messages_and_processes(env: dict[str, str]) -> None:
    result = run_dure(
        "chat", "--agent", "demo", stdin="내 이름은 민수야\n내 이름이 뭐야?\n\n", env=env
    )
    assert result.returncode == 0, result.stderr
    assert "반가워요, 민수님!" in result.stdout
    assert "당신의 이름은 민수입니다." in result.stdout
    assert_no_traceback(result.stderr)
    match = re.search(r"dure chat --agent demo --thread (\w+)", result.stdout)
    assert match, result.stdout
    again = run_dure("ask", "--agent", "demo", "--thread", match[1], "내 이름이 뭐야?", env=env)
    assert "당신의 이름은 민수입니다." in again.stdout


def test_chat_ends_on_end_of_input(env: dict[str, str]) -> None:
    result = run_dure(
        "chat", "--agent", "demo", "--thread", "eof", stdin="내 이름은 하나야\n", env=env
    )
    assert result.returncode == 0, result.stderr
    assert "반가워요, 하나님!" in result.stdout
    assert "dure chat --agent demo --thread eof" in result.stdout


def test_unreachable_database_is_one_line(tmp_path: Path) -> None:
    env = cli_env(tmp_path, DURE_DATABASE_URL="postgresql://dure:pw@127.0.0.1:1/dure")
    result = run_dure("ask", "--agent", "demo", "안녕", env=env)
    assert result.returncode == 2
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("오류: 데이터베이스를 열 수 없습니다 (postgres)")
    assert "pw" not in lines[0]


def test_a_fifth_agent_is_one_module_and_one_entry_point(tmp_path: Path) -> None:
    """An installed distribution that names `demo_agent:AGENT` in the `dure.agents` group."""
    site = tmp_path / "site"
    (site / "fifth_agent-0.1.dist-info").mkdir(parents=True)
    (site / "fifth_agent-0.1.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: fifth-agent\nVersion: 0.1\n", encoding="utf-8"
    )
    (site / "fifth_agent-0.1.dist-info" / "entry_points.txt").write_text(
        "[dure.agents]\nfifth = demo_agent:AGENT\n", encoding="utf-8"
    )
    demo = Path(__file__).resolve().parents[1] / "demo_agent.py"
    (site / "demo_agent.py").write_text(demo.read_text(encoding="utf-8"), encoding="utf-8")
    env = cli_env(tmp_path / "data", PYTHONPATH=str(site), DURE_EXTRA_AGENTS="")
    listed = run_dure("agents", env=env)
    assert listed.returncode == 0, listed.stderr
    assert ["fifth", "이름을 기억하는 데모"] in [
        row.split(None, 1) for row in listed.stdout.splitlines()
    ]
    asked = run_dure("ask", "--agent", "fifth", "--json", "내 이름은 민수야", env=env)
    assert asked.returncode == 0, asked.stderr
    done = json.loads(asked.stdout.splitlines()[-1])
    assert done["type"] == "done" and done["content"] == "반가워요, 민수님!"
