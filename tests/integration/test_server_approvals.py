"""Approvals over a live, shared server (auth on), through the official `openai` client as a
stateless chat front end would use it: the request is the assistant's message, the next user
message answers it, and a pending approval survives a server restart. The assistant is the real
agent with a scripted model; `python_repl` runs in the real sandbox once approved."""

from __future__ import annotations

import asyncio

import openai

from dure.llm import ModelSet
from dure.server import create_app
from dure.server.database import open_storage
from dure.server.keys import create_key
from dure.settings import Settings
from dure.testing import ScriptedChatModel, tool_call
from server_support import live_server

CODE = "print(6 * 7)"


def ask(url: str, key: str, history: list[dict]) -> str:
    c = openai.OpenAI(base_url=f"{url}/v1", api_key=key, max_retries=0, timeout=60)
    reply = c.chat.completions.create(model="dure-assistant", messages=history)
    return reply.choices[0].message.content or ""


def test_an_approval_is_asked_answered_and_survives_a_restart(settings: Settings) -> None:
    async def new_key() -> str:
        async with open_storage(settings.effective_database_url) as storage:
            return (await create_key(storage.db, "a"))[1]

    key = asyncio.run(new_key())
    model = ScriptedChatModel([tool_call("python_repl", code=CODE), "계산 결과는 42입니다."])
    history = [{"role": "user", "content": "6 곱하기 7을 파이썬으로 계산해 줘"}]
    with live_server(create_app(settings, models=ModelSet(settings, model))) as url:
        question = ask(url, key, history)
    assert "'python_repl' 도구를 실행할까요?" in question and CODE in question
    assert len(model.calls) == 1  # the code has not run: no tool result went back to a model
    history += [{"role": "assistant", "content": question}, {"role": "user", "content": "승인"}]
    with live_server(create_app(settings, models=ModelSet(settings, model))) as url:  # restarted
        answer = ask(url, key, history)
    assert answer == "계산 결과는 42입니다."
    told = model.calls[-1].messages[-1]
    assert told.type == "tool"  # the sandbox ran it, once; its output reaches the model as data
    assert told.content.startswith('<자료 출처="python_repl">\n42') and told.content.endswith(
        "</자료>"
    )
