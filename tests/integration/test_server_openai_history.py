"""A stateless OpenAI client (no thread header, no `user`) sends the whole conversation with
every request: the official `openai` package against a live loopback server, the real contract
agent with a scripted model, the contract chosen in the request's `metadata`."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import httpx
import openai
import pytest

from dure.llm import ModelSet
from dure.server import create_app
from dure.server.database import open_storage
from dure.server.keys import create_key
from dure.settings import Settings
from dure.testing import Call, ScriptedChatModel
from server_support import live_server

SOFTWARE = Path(__file__).resolve().parents[2] / "examples" / "contracts" / "software_dev.md"
FIRST = "제5조에 따르면 선급금은 계약 체결일로부터 14일 이내에 계약금액의 30퍼센트입니다."
TERM = "제3조에 따르면 수행기간은 2025년 3월 1일부터 2025년 8월 31일까지입니다."


def scripted(call: Call) -> str:
    """The contract agent's answer: from the article its prompt carries."""
    return TERM if "제3조 (계약기간)" in call.prompt else FIRST


@pytest.fixture
def served(settings: Settings) -> Iterator[tuple[str, str, str, ScriptedChatModel]]:
    """A live server, a key, the key's uploaded contract and the scripted model."""
    settings.search.store = "memory"

    async def new_key() -> str:
        async with open_storage(settings.effective_database_url) as storage:
            return (await create_key(storage.db, "a"))[1]

    key = asyncio.run(new_key())
    model = ScriptedChatModel(scripted)
    with live_server(create_app(settings, models=ModelSet(settings, model))) as url:
        uploaded = httpx.post(
            f"{url}/documents",
            files={"file": (SOFTWARE.name, SOFTWARE.read_bytes())},
            data={"kind": "contract"},
            headers={"Authorization": f"Bearer {key}"},
            timeout=120,
        )
        assert uploaded.status_code == 201, uploaded.text
        yield url, key, uploaded.json()["id"], model


def ask(url: str, key: str, contract: str, messages: list[dict[str, str]]) -> str:
    c = openai.OpenAI(base_url=f"{url}/v1", api_key=key, max_retries=0, timeout=120)
    reply = c.chat.completions.create(
        model="dure-contract", messages=messages, metadata={"contract": contract}
    )
    return reply.choices[0].message.content or ""


def test_a_follow_up_answers_from_the_history_the_client_sent(served) -> None:
    url, key, contract, model = served
    first = [{"role": "user", "content": "제5조 선급금은 언제 줘?"}]
    assert ask(url, key, contract, first) == FIRST
    # The client's own record of the answer (trimmed, so no thread on the server matches it).
    history = [
        *first,
        {"role": "assistant", "content": "선급금은 계약 후 14일 안에 30%를 줍니다."},
        {"role": "user", "content": "그럼 3조는?"},
    ]
    assert ask(url, key, contract, history) == TERM
    answered = model.calls[-1].prompt
    assert "챗봇: 선급금은 계약 후 14일 안에 30%를 줍니다." in answered  # the conversation sent
    assert "제3조 (계약기간)" in answered
