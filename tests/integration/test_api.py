"""The public Python API (`dure.run_stream` / `dure.arun_stream`) on real parts.

The chat model is scripted; the collection, parser, checkpointer (SQLite in the data
directory) and agents are the real ones.
"""

from __future__ import annotations

from pathlib import Path

import dure
from dure.events import Done, SourcesEvent, Token
from dure.llm import ModelSet
from dure.settings import Settings
from dure.testing import ScriptedChatModel

ROOT = Path(__file__).resolve().parents[2]
SOFTWARE = ROOT / "examples" / "contracts" / "software_dev.md"


def test_run_stream_answers_as_the_seed_shows(settings: Settings) -> None:
    settings.search.store = "memory"
    model = ScriptedChatModel(
        ["제5조에 따르면 선급금 30퍼센트를 14일 이내에 지급합니다. 잔금은 검수 후에 지급합니다."]
    )
    events = list(
        dure.run_stream(
            agent="contract",
            contract=SOFTWARE,
            user_message="제5조 내용이 뭐야?",
            session_id="session_456",
            settings=settings,
            models=ModelSet(settings, model),
        )
    )
    text = "".join(e["content"] for e in events if e["type"] == "token")
    assert text.startswith("제5조에 따르면")
    assert sum(isinstance(e, Token) for e in events) > 1  # streamed a sentence at a time
    sources = next(e for e in events if isinstance(e, SourcesEvent)).content
    assert [s.article_no for s in sources] == ["제5조"]
    done = events[-1]
    assert isinstance(done, Done) and done.content == text and done.usage.llm_calls == 1


async def test_arun_stream_takes_an_explicit_previous_turn(settings: Settings) -> None:
    model = ScriptedChatModel(["연장은 계약 만료 30일 전까지 요청하시면 됩니다."])
    previous = [
        {"role": "user", "content": "계약 기간은?"},
        {"role": "assistant", "content": "계약 기간은 1년입니다."},
    ]
    events = [
        e
        async for e in dure.arun_stream(
            agent="assistant",
            user_message="그럼 연장은 어떻게 해?",
            session_id="fresh-session",
            previous_turn=previous,
            settings=settings,
            models=ModelSet(settings, model),
        )
    ]
    assert events[-1]["type"] == "done"
    assert events[-1].content.startswith("연장은")
    answered = model.calls[-1].prompt
    assert "계약 기간은 1년입니다." in answered and "그럼 연장은 어떻게 해?" in answered


async def test_an_unknown_agent_is_a_clear_error(settings: Settings) -> None:
    stream = dure.arun_stream(agent="없는에이전트", user_message="안녕", session_id="s")
    try:
        await anext(stream)
    except LookupError as e:
        assert "알 수 없는 에이전트" in str(e) and "contract" in str(e)
    else:
        raise AssertionError("an unknown agent must raise")
