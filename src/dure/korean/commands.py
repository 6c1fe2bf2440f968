"""`dure understand intent|followup|scope|route`: the agents' decisions, one message or a batch.

Each runs exactly the call an agent makes (same tiers, same model roles). With `--input F.jsonl`
every line is one case and one JSON object comes out per line; a bad line gets
`{"id", "error"}` and the rest go on. Without it, one message is decided (no history).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any

import typer
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from dure.batch import Row, each_row, print_json
from dure.errors import DureError
from dure.korean.followup import decide_followup
from dure.korean.intent import decide_intent
from dure.korean.route import decide_route
from dure.korean.scope import decide_scope
from dure.korean.time import seoul_now_text
from dure.llm import ModelSet, StructuredOutputError
from dure.settings import get_settings

understand_app = typer.Typer(
    help="사용자 말 이해 판단 (규칙 → 예문 유사도 → LLM 한 번)", no_args_is_help=True
)

Decide = Callable[[str, list[dict[str, str]], ModelSet], Awaitable[Row]]


def _history(row: Mapping[str, Any]) -> list[dict[str, str]]:
    history = row.get("history") or []
    if not isinstance(history, list) or not all(
        isinstance(m, dict) and m.get("role") in ("user", "assistant") for m in history
    ):
        raise DureError('history는 {"role": "user"|"assistant", "content": …}의 목록이어야 합니다.')
    return [{"role": str(m["role"]), "content": str(m.get("content", ""))} for m in history]


def _messages(history: Sequence[Mapping[str, str]]) -> list[BaseMessage]:
    return [
        HumanMessage(m["content"]) if m["role"] == "user" else AIMessage(m["content"])
        for m in history
    ]


def last_exchange(history: Sequence[Mapping[str, str]]) -> list[dict[str, str]]:
    """The last user message and the assistant's answer to it (empty without one)."""
    for i in range(len(history) - 1, 0, -1):
        if history[i]["role"] == "assistant" and history[i - 1]["role"] == "user":
            return [dict(history[i - 1]), dict(history[i])]
    return []


async def _intent(message: str, history: list[dict[str, str]], models: ModelSet) -> Row:
    d = await decide_intent(message, history, models, seoul_now_text())
    return {
        "intent": d.intent,
        "needs_tool": d.needs_tool,
        "rewritten_query": d.rewritten_query,
        "decided_by": d.decided_by,
    }


async def _followup(message: str, history: list[dict[str, str]], models: ModelSet) -> Row:
    d = await decide_followup(message, last_exchange(history), models)
    return {"refers_to_previous": d.refers_to_previous, "decided_by": d.decided_by}


async def _scope(message: str, history: list[dict[str, str]], models: ModelSet) -> Row:
    d = await decide_scope(message, models, bool(last_exchange(history)))
    return {"in_scope": d.in_scope, "kind": d.kind, "decided_by": d.decided_by}


async def _route(message: str, history: list[dict[str, str]], models: ModelSet) -> Row:
    d = await decide_route(message, _messages(history), models, has_documents=True)
    return {"route": d.route, "decided_by": d.decided_by}


async def _one(decide: Decide, row: Mapping[str, Any], models: ModelSet) -> Row:
    message = row.get("message")
    if not isinstance(message, str) or not message.strip():
        raise DureError("message(비어 있지 않은 문자열)가 필요합니다.")
    try:
        return await decide(message, _history(row), models)
    except StructuredOutputError as e:
        raise DureError(f"모델의 판단 결과를 해석하지 못했습니다 ({e.reason}).") from e


def _run(decide: Decide, message: str | None, input_file: Path | None, as_json: bool) -> None:
    if (message is None) == (input_file is None):
        raise DureError("판단할 메시지 하나 또는 --input FILE.jsonl 중 하나를 주세요.")
    models = ModelSet(get_settings())

    async def batch(path: Path) -> None:
        loop = asyncio.get_running_loop()
        rows = await loop.run_in_executor(None, list, each_row(path, lambda r: {"row": r}))
        for item in rows:
            if "error" in item:
                print_json(item)
                continue
            row = item.pop("row")
            try:
                print_json({"id": item["id"], **await _one(decide, row, models)})
            except (DureError, KeyError, TypeError) as e:
                print_json({"id": item["id"], "error": str(e)})

    if input_file is not None:
        asyncio.run(batch(input_file))
        return
    result = asyncio.run(_one(decide, {"message": message}, models))
    if as_json:
        print_json(result)
    else:
        print("  ".join(f"{k}={v}" for k, v in result.items()))


MessageArg = Annotated[str | None, typer.Argument(help="판단할 메시지")]
InputOpt = Annotated[
    Path | None,
    typer.Option("--input", help='JSONL: {"id","message","history"} 한 줄에 하나 (-: 표준 입력)'),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="JSON으로 출력")]


def _command(name: str, decide: Decide, summary: str) -> None:
    def command(
        message: MessageArg = None, input_file: InputOpt = None, as_json: JsonOpt = False
    ) -> None:
        _run(decide, message, input_file, as_json)

    command.__doc__ = summary
    understand_app.command(name)(command)


for _name, _decide, _summary in (
    (
        "intent",
        _intent,
        "계획-실행 에이전트의 의도(new_question/follow_up/clarification/chitchat)와 도구 필요 여부.",
    ),
    ("followup", _followup, "답하려면 직전 대화 내용이 필요한지."),
    ("scope", _scope, "계약서 Q&A 에이전트가 다룰 질문인지 (계약·인사 / 범위 밖)."),
    ("route", _route, "어시스턴트의 경로: 등록한 문서 검색(rag) 또는 그 밖(agent)."),
):
    _command(_name, _decide, _summary)


def register(app: typer.Typer) -> None:
    """Add `dure understand …` to the main CLI."""
    app.add_typer(understand_app, name="understand")
