"""Carrying the facts of a summary that leaves the window into the new one."""

from __future__ import annotations

from dure.memory import carry_facts, fact_lines

OLD = "핵심 사실:\n- 이름: 철수\n- 마감: 3월 15일\n대화 흐름: 프로젝트 소개"
NEW = "핵심 사실:\n- 예산: 1억원\n대화 흐름: 예산 논의"


def test_fact_lines() -> None:
    assert fact_lines(OLD) == ["- 이름: 철수", "- 마감: 3월 15일"]
    assert fact_lines("핵심 사실:\n• 장소: 7층\n* 담당: 영희") == ["- 장소: 7층", "- 담당: 영희"]
    assert fact_lines("사용자는 철수이고 마감은 3월 15일이다.") == [
        "- 사용자는 철수이고 마감은 3월 15일이다."
    ]
    assert fact_lines("") == []


def test_carried_facts_come_first_under_the_header() -> None:
    assert carry_facts([OLD], NEW) == (
        "핵심 사실:\n- 이름: 철수\n- 마감: 3월 15일\n- 예산: 1억원\n대화 흐름: 예산 논의"
    )


def test_a_summary_without_the_header_gets_one() -> None:
    assert carry_facts([OLD], "예산은 1억원으로 정함") == (
        "핵심 사실:\n- 이름: 철수\n- 마감: 3월 15일\n예산은 1억원으로 정함"
    )


def test_facts_already_there_are_not_repeated() -> None:
    new = "핵심 사실:\n- 이름:  철수\n- 예산: 1억원"
    assert carry_facts([OLD], new).count("철수") == 1


def test_nothing_leaving_changes_nothing() -> None:
    assert carry_facts([], NEW) == NEW


def test_the_oldest_carried_facts_go_beyond_the_limit() -> None:
    old = "핵심 사실:\n" + "\n".join(f"- 사실 {i}" for i in range(10))
    carried = carry_facts([old], NEW, max_facts=5)
    assert fact_lines(carried) == ["- 사실 6", "- 사실 7", "- 사실 8", "- 사실 9", "- 예산: 1억원"]
