"""The assistant over a real collection (`dure.retrieval`, Kiwi BM25, in-memory store — seed
002's default vector store) with a scripted model: retrieval feeds the prompt's passages and sources."""

from __future__ import annotations

from pathlib import Path

import pytest

from dure import honest
from dure.agents.assistant import nodes
from dure.agents.assistant.prompts import CONTEXT_HEADER
from dure.retrieval import open_collection
from dure.settings import Settings
from dure.testing import ScriptedChatModel, tool_call
from unit.assistant.harness import Assistant, system_prompt, tool_messages

HANDBOOK = """# 두레상사 직원 안내서

## 휴가 정책
연차 유급휴가는 입사 1년 후 15일이 주어진다. 병가는 연 10일까지 유급이다.
연차는 반차(4시간) 단위로 나눠 쓸 수 있다.

## 출장 규정
국내 출장 일비는 하루 5만원이며 숙박비는 1박 10만원까지 실비로 지원한다.

## 보안 지침
사내 문서는 외부 메일로 보낼 수 없다. 노트북은 퇴근 시 잠금 서랍에 보관한다.
"""


@pytest.fixture
def collection(settings: Settings, tmp_path: Path) -> str:
    settings.search.store = "memory"
    path = tmp_path / "직원안내서.md"
    path.write_text(HANDBOOK, encoding="utf-8")
    name = f"handbook-{tmp_path.name[-8:]}"
    open_collection(name, settings).add_document(path, kind="document")
    return name


async def test_rag_over_a_real_collection(settings: Settings, collection: str) -> None:
    bot = Assistant(
        settings,
        ScriptedChatModel(["연차는 15일, 병가는 10일입니다."]),
        options={"collection": collection},
    )
    turn = await bot.turn("회사 휴가 정책이 뭐야?")
    assert turn.route == "rag"
    assert turn.llm_calls <= 2
    prompt = system_prompt(turn.calls[0])
    context = prompt[prompt.index(CONTEXT_HEADER) :]
    assert "[1] " in context and "연차 유급휴가는 입사 1년 후 15일" in context
    first = turn.done.sources[0]
    assert first.doc == "직원안내서" and "휴가 정책" in (first.article_title or "")
    assert "15일" in first.text
    # The document's own words follow, not the heading path the passage opens with.
    quoted = turn.done.content.split("\n\n문서 원문 — ")[1]
    assert quoted.startswith("직원안내서 (두레상사 직원 안내서 > 휴가 정책): “")
    assert quoted.removesuffix("”").split("“")[1] in HANDBOOK


async def test_an_unsure_agent_route_reaches_documents_that_hold_its_subject(
    settings: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "바퀴에 머리카락 끼면 어떻게 빼?" is the agent's by the example bank, unsurely; the user's
    manual speaks of 바퀴, so the question is asked of it (searched once: `rag` reads what the
    router found)."""
    searches: list[str] = []
    search = nodes._search

    async def counted(deps, question, name):
        searches.append(question)
        return await search(deps, question, name)

    monkeypatch.setattr(nodes, "_search", counted)
    settings.search.store = "memory"
    path = tmp_path / "청소기설명서.md"
    path.write_text(
        "# 로봇청소기 설명서\n\n## 관리\n바퀴에 머리카락이 감기면 바퀴를 분리해 가위로 잘라 "
        "제거하세요.\n\n## 충전\n완충까지 약 3시간 걸립니다.\n",
        encoding="utf-8",
    )
    open_collection("manual", settings).add_document(path, kind="document")
    bot = Assistant(
        settings,
        ScriptedChatModel(["바퀴를 분리한 뒤 가위로 잘라 제거하세요."]),
        options={"collection": "manual"},
    )
    turn = await bot.turn("바퀴에 머리카락 끼면 어떻게 빼?")
    assert turn.route == "rag" and turn.llm_calls == 1
    assert "바퀴를 분리해 가위로" in system_prompt(turn.calls[0])
    assert searches == ["바퀴에 머리카락 끼면 어떻게 빼?"]
    assert turn.done.sources and "바퀴" in turn.done.sources[0].text


@pytest.mark.usefixtures("llm_tier")
async def test_rag_and_tool_over_a_real_collection(settings: Settings, collection: str) -> None:
    model = ScriptedChatModel(
        [
            {"route": "rag", "reason": "출장 규정과 계산"},
            tool_call("calculator", expression="50000 * 3 + 100000 * 2"),
            "3일 출장이면 일비와 숙박비로 35만원까지 받을 수 있습니다.",
        ]
    )
    bot = Assistant(settings, model, options={"collection": collection})
    turn = await bot.turn("출장 규정 기준으로 2박 3일이면 일비랑 숙박비 합쳐서 얼마인지 계산해줘")
    assert [c.node for c in turn.calls] == ["router", "agent", "agent"]
    assert "일비는 하루 5만원" in system_prompt(turn.calls[1])
    assert tool_messages(turn.calls[2])[0].content == "350000"
    assert turn.llm_calls == 3


async def test_added_documents_are_searched_with_no_collection_setting(
    settings: Settings, tmp_path: Path
) -> None:
    """`dure documents add --kind document` puts a file in `documents`; the assistant's rag
    route finds it with no collection named anywhere (the FAISS store on disk)."""
    from dure.retrieval.types import DOCUMENTS_COLLECTION

    assert settings.search.store == "faiss" and settings.assistant.collection is None
    bot = Assistant(settings, ScriptedChatModel([]))
    before = await bot.turn("회사 휴가 정책이 뭐야?", thread="before")
    # Nothing added yet: the answer says so by rule, with no model call.
    assert before.done.content == honest.NO_DOCUMENTS and before.done.usage.llm_calls == 0
    path = tmp_path / "직원안내서.md"
    path.write_text(HANDBOOK, encoding="utf-8")
    open_collection(DOCUMENTS_COLLECTION, settings).add_document(path, kind="document")
    bot = Assistant(settings, ScriptedChatModel(["연차는 15일입니다."]))
    turn = await bot.turn("회사 휴가 정책이 뭐야?")
    assert turn.route == "rag"
    assert turn.done.sources and turn.done.sources[0].doc == "직원안내서"


async def test_a_keys_documents_collection_is_the_one_searched(
    settings: Settings, collection: str
) -> None:
    """The server names the key's own documents collection; the local one is not searched."""
    bot = Assistant(
        settings,
        ScriptedChatModel(["연차는 15일입니다."]),
        options={"documents_collection": collection},
    )
    turn = await bot.turn("회사 휴가 정책이 뭐야?")
    assert turn.route == "rag" and "15일" in turn.done.sources[0].text
    other = Assistant(
        settings, ScriptedChatModel([]), options={"documents_collection": "k000000000000_documents"}
    )
    # Another key has no documents: it is told so, and sees nothing of this key's.
    assert (await other.turn("회사 휴가 정책이 뭐야?")).done.content == honest.NO_DOCUMENTS
