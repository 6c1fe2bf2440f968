"""`dure index`, `dure search` and `dure collections`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from dure.errors import DureError
from dure.retrieval import commands
from dure.settings import Settings

from .conftest import SAMPLES


@pytest.fixture
def run(settings: Settings):
    """Invoke the search commands in-process on the test's data directory."""
    app = typer.Typer()
    commands.register(app)
    runner = CliRunner()

    def invoke(*args: str):
        return runner.invoke(app, list(args))

    return invoke


def test_index_search_and_list(run, tmp_path: Path) -> None:
    sw, std = SAMPLES["software_dev"][0], SAMPLES["software_dev_standard"][0]
    first = run("index", str(sw), "--collection", "demo", "--kind", "contract")
    assert first.exit_code == 0, first.output
    assert "추가" in first.output and "검색 항목 29개" in first.output
    again = run("index", str(sw), "--collection", "demo", "--kind", "contract")
    assert "변경 없음" in again.output
    assert run("index", str(std), "-c", "demo", "--kind", "standard").exit_code == 0

    hits = json.loads(run("search", "하청 줘도 돼?", "-c", "demo", "--top-k", "2", "--json").stdout)
    assert len(hits) == 2
    assert set(hits[0]) >= {"doc", "article_no", "article_title", "score", "text"}
    assert hits[0]["article_title"] in ("하도급", "하도급의 제한")

    scoped = run("search", "지체상금", "-c", "demo", "--doc", "software_dev", "-n", "1")
    assert "소프트웨어 개발 용역 계약서 제15조 (지체상금)" in scoped.stdout

    queries = tmp_path / "q.jsonl"
    queries.write_text(
        "\n".join(
            json.dumps(q, ensure_ascii=False)
            for q in [
                {"id": "a", "query": "제5조", "doc": "software_dev"},
                {"id": "b", "query": "하도급의 제한", "kind": "standard"},
            ]
        )
        + '\n{"id": "c", "query": \n{"id": "d"}\n{"id": "e", "query": "   "}\n',
        encoding="utf-8",
    )
    lines = run("search", "-c", "demo", "--queries", str(queries), "--json").stdout.splitlines()
    answers = [json.loads(line) for line in lines]
    assert [a["id"] for a in answers] == ["a", "b", 3, "d", "e"]
    assert answers[0]["hits"][0]["article_no"] == "제5조"
    assert answers[1]["hits"][0]["kind"] == "standard"
    # a bad line or question gets its own error line, and the others still run
    assert answers[2] == {"id": 3, "hits": [], "error": answers[2]["error"]}
    assert "JSON이 아닙니다" in answers[2]["error"]
    assert answers[3]["error"] == "'query' 문자열이 없습니다."
    assert answers[4]["error"] == "검색어가 비어 있습니다."

    listing = run("collections")
    assert "demo\tfaiss\t문서 2개" in listing.stdout


def test_one_bad_file_is_reported_and_the_rest_indexed(run, tmp_path: Path) -> None:
    bad = tmp_path / "bad.docx"
    bad.write_bytes(b"PK broken")
    result = run("index", str(bad), str(SAMPLES["lease"][0]), "-c", "mixed", "--kind", "contract")
    assert result.exit_code == 1
    assert "bad.docx" in result.output and "lease.md" in result.output
    assert "문서 1개" in result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("search", "x", "-c", "empty"), "컬렉션 'empty'이 없습니다"),
        (("search", "x" * 20_000, "-c", "filled"), "검색어가 너무 깁니다"),
        (("search", " ", "-c", "filled"), "검색어가 비어 있습니다"),
        (("search", "-c", "empty"), "검색어 또는 --queries"),
        (("index", "a.md", "-c", "x", "--kind", "memo"), "--kind"),
        (("search", "x", "-c", "bad/name"), "컬렉션 이름"),
        (("collections", "--store", "opensearch"), "알 수 없는 저장소"),
    ],
)
def test_user_errors_are_dure_errors(run, args: tuple[str, ...], message: str) -> None:
    assert (
        run("index", str(SAMPLES["lease"][0]), "-c", "filled", "--kind", "contract").exit_code == 0
    )
    result = run(*args)
    assert isinstance(result.exception, DureError)
    assert message in str(result.exception)


def test_one_bad_question_in_a_batch_is_reported_and_the_rest_answered(run, tmp_path: Path) -> None:
    assert (
        run("index", str(SAMPLES["lease"][0]), "-c", "batch", "--kind", "contract").exit_code == 0
    )
    queries = tmp_path / "q.jsonl"
    lines = [{"id": "a", "query": ""}, {"id": "b", "query": "보증금 돌려받는 조항"}]
    queries.write_text("\n".join(json.dumps(x, ensure_ascii=False) for x in lines), "utf-8")
    result = run("search", "-c", "batch", "--queries", str(queries), "--json")
    assert result.exit_code == 0
    first, second = (json.loads(line) for line in result.stdout.splitlines())
    assert first == {"id": "a", "hits": [], "error": "검색어가 비어 있습니다."}
    assert second["id"] == "b" and second["hits"][0]["article_no"]


def test_the_real_command_prints_one_korean_line(settings: Settings) -> None:
    """Through `dure.cli.main`: exit code 2 and one line, no traceback."""
    proc = subprocess.run(
        [sys.executable, "-c", "from dure.cli import main; main()", "search", "x", "-c", "nothing"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2
    assert proc.stderr.strip() == "오류: 컬렉션 'nothing'이 없습니다 (있는 컬렉션: 없음)."
