"""The contract agent on the real search layer and the sample contracts in `examples/`.

The model is scripted; everything else is real: the collection (Kiwi BM25, in-memory store),
the parser, the checkpointer (SQLite, reopened between turns) and the CLI.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dure.agent import AgentContext
from dure.agents.contract import AGENT
from dure.events import EvaluationResult, SourcesEvent, stream_turn
from dure.llm import ModelSet
from dure.persistence import open_checkpointer
from dure.settings import Settings
from dure.testing import ScriptedChatModel

ROOT = Path(__file__).resolve().parents[2]
SOFTWARE = ROOT / "examples" / "contracts" / "software_dev.md"
STANDARD = ROOT / "examples" / "standard" / "software_dev_standard.md"


@pytest.fixture
def keyword_settings(settings: Settings, tmp_path: Path) -> Settings:
    """Keyword-only search in memory (no embedding model to load), a fresh collection name."""
    settings.search.store = "memory"
    return settings


async def run_turn(settings, model, thread, message, **options):
    options.setdefault("collection", f"c{abs(hash(str(settings.data_dir))) % 10**8}")
    async with open_checkpointer(settings.effective_database_url) as saver:
        ctx = AgentContext(settings, ModelSet(settings, model), saver, options)
        return [e async for e in stream_turn(AGENT, ctx, thread, message)]


async def test_by_number_on_a_sample_contract(keyword_settings):
    model = ScriptedChatModel(
        ["제5조(대금의 지급)에 따르면 선급금 30퍼센트를 14일 이내에 지급합니다."]
    )
    events = await run_turn(keyword_settings, model, "t", "제5조 내용이 뭐야?", contract=SOFTWARE)
    sources = next(e for e in events if isinstance(e, SourcesEvent)).content
    assert [(s.article_no, s.article_title) for s in sources] == [("제5조", "대금의 지급")]
    assert sources[0].doc == "소프트웨어 개발 용역 계약서"
    assert events[-1].usage.llm_calls == 1
    assert "선급금" in model.calls[0].prompt


async def test_paraphrase_uses_real_search(keyword_settings):
    model = ScriptedChatModel(
        [
            {"is_sufficient": True, "reasoning": "지체상금 조항 확인", "missing_info": None},
            "제15조(지체상금)에 따라 지체일수마다 지체상금을 냅니다.",
        ]
    )
    events = await run_turn(
        keyword_settings, model, "t", "개발이 늦어지면 벌금 같은 거 물어야 돼?", contract=SOFTWARE
    )
    # The first round searched the question by rule: evaluator and answer, no planner call.
    assert events[-1].usage.llm_calls == 2
    assert [s.article_no for s in events[-1].sources] == ["제15조"]
    assert "제15조 (지체상금)" in model.calls[0].prompt  # the evaluator saw the article


async def test_a_clear_search_lead_answers_without_the_evaluator(settings: Settings) -> None:
    """Hybrid search (e5 + Kiwi BM25, z-score fusion) puts 제15조 far ahead: no evaluator call."""
    from dure.retrieval import open_collection

    library = open_collection(
        f"lead{abs(hash(str(settings.data_dir))) % 10**6}", settings, store="memory", dense=True
    )
    model = ScriptedChatModel(["제15조(지체상금)에 따라 지체일수마다 지체상금을 냅니다."])
    events = await run_turn(
        settings,
        model,
        "t",
        "개발이 늦어지면 벌금 같은 거 물어야 돼?",
        contract=SOFTWARE,
        library=library,
    )
    assert [c.node for c in model.calls] == ["respond"]  # no planner, no evaluator call
    judged = next(e for e in events if isinstance(e, EvaluationResult))
    assert judged.is_sufficient and "제15조" in judged.content
    assert events[-1].sources[0].article_no == "제15조"


async def test_standard_contract_is_kept_apart(keyword_settings):
    model = ScriptedChatModel(["제11조는 사전 서면 승인을, 표준계약서 제12조도 승인을 요구합니다."])
    events = await run_turn(
        keyword_settings,
        model,
        "t",
        "제11조를 표준계약서와 비교해줘",
        contract=SOFTWARE,
        standard=STANDARD,
    )
    prompt = model.calls[0].prompt
    assert prompt.index("## 사용자 계약서") < prompt.index("## 표준계약서")
    kinds = {(s.kind, s.article_no) for s in events[-1].sources}
    assert ("contract", "제11조") in kinds
    assert any(kind == "standard" for kind, _ in kinds)


async def test_thread_survives_a_restart(keyword_settings):
    first = "제3조(계약기간)에 따르면 2025년 3월 1일부터 8월 31일까지입니다."
    model = ScriptedChatModel([first, "제3조 제2항에 따라 서면 합의로 연장할 수 있습니다."])
    await run_turn(keyword_settings, model, "thread-1", "제3조 알려줘", contract=SOFTWARE)
    # A new checkpointer connection (as after a restart); the contract is not named again.
    events = await run_turn(keyword_settings, model, "thread-1", "그럼 연장은 어떻게 해?")
    assert events[-1].content.startswith("제3조 제2항")
    assert first in model.calls[1].prompt  # the answer saw the previous turn


def test_cli_ask_json_streams_events_with_sources(keyword_settings, monkeypatch):
    from dure import cli

    model = ScriptedChatModel(["제5조(대금의 지급)를 보세요."])
    monkeypatch.setattr("dure.llm.chat_model", lambda role, settings=None: model)
    result = CliRunner().invoke(
        cli.app,
        ["ask", "--agent", "contract", "--contract", str(SOFTWARE), "제5조 내용이 뭐야?", "--json"],
    )
    assert result.exit_code == 0, result.output
    events = [json.loads(line) for line in result.output.splitlines() if line.startswith("{")]
    sources = next(e for e in events if e["type"] == "sources")
    assert [s["article_no"] for s in sources["content"]] == ["제5조"]
    assert events[-1]["type"] == "done"


def test_cli_missing_contract_file_is_one_korean_line(tmp_path):
    proc = subprocess.run(
        [str(Path(sys.executable).parent / "dure"), "ask", "--agent", "contract", "--contract",
         str(tmp_path / "없음.md"), "제5조 내용이 뭐야?"],
        capture_output=True,
        text=True,
        env={"DURE_DATA_DIR": str(tmp_path), "PATH": "/usr/bin:/bin"},
        timeout=120,
    )  # fmt: skip
    assert proc.returncode == 2
    assert "계약서 파일을 찾을 수 없습니다" in proc.stderr
    assert "Traceback" not in proc.stderr
