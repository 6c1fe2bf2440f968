"""`dure tools list` and `dure tools call NAME --args JSON`: the assistant's tools, one call at a
time, with no model in between (to try a tool, or to check that python_repl's sandbox works).

A call is approved as the assistant's would be on this machine (`dure.tools.approval`): a tool
the settings say to `ask` about is asked on the terminal (or granted with `--approve`), one they
`deny` does not run."""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from dure.batch import print_json
from dure.errors import DureError
from dure.settings import get_settings
from dure.tools.approval import DENIED, REJECTED, policy, why_asked
from dure.tools.base import ToolRegistry, ToolResult
from dure.tools.registry import default_registry

#: Whose tools these are: the `approvals` settings of this agent apply.
ASSISTANT = "assistant"

tools_app = typer.Typer(help="도구 목록과 직접 호출 (비서가 쓰는 도구)", no_args_is_help=True)
out = Console(highlight=False, soft_wrap=True)


@tools_app.command("list")
def list_tools() -> None:
    """도구 이름과 설명."""
    registry = default_registry(get_settings())
    for tool in map(registry.get, registry.names()):
        out.print(f"{tool.name}\t{escape(tool.description)}")


@tools_app.command("call")
def call(
    name: Annotated[str, typer.Argument(help="도구 이름 (`dure tools list`)")],
    args: Annotated[
        str, typer.Option("--args", help='인자 JSON 객체, 예: \'{"code": "1+1"}\'')
    ] = "{}",
    as_json: Annotated[bool, typer.Option("--json", help="결과를 JSON 한 줄로 출력")] = False,
    approve: Annotated[
        bool, typer.Option("--approve", help="승인이 필요한 도구를 묻지 않고 승인합니다")
    ] = False,
) -> None:
    """도구 하나를 실행합니다 (실패하면 종료 코드 1)."""
    try:
        parsed = json.loads(args)
    except json.JSONDecodeError as e:
        raise DureError(f"--args가 올바른 JSON이 아닙니다: {e.msg} (위치 {e.pos})") from e
    if not isinstance(parsed, dict):
        raise DureError('--args는 JSON 객체여야 합니다, 예: \'{"code": "1+1"}\'')
    settings = get_settings()
    registry = default_registry(settings)
    chosen = policy(settings, ASSISTANT, registry, name, "local", untrusted=False)
    if chosen == "deny":
        result = ToolResult.fail(DENIED)
    elif chosen == "ask" and not approve and not _approved_on_terminal(registry, name, parsed):
        result = ToolResult.fail(REJECTED)
    else:
        result = asyncio.run(registry.run(name, parsed))
    if as_json:
        print_json(result.model_dump(mode="json"))
    else:
        out.print(escape(result.content))
    if not result.ok:
        raise typer.Exit(1)


def _approved_on_terminal(registry: ToolRegistry, name: str, args: dict[str, Any]) -> bool:
    why = why_asked(registry, name)
    shown = escape(json.dumps(args, ensure_ascii=False))
    if not sys.stdin.isatty():
        raise DureError(f"'{name}' 도구는 승인이 필요합니다 ({why}). --approve를 붙여 실행하세요.")
    out.print(f"'{name}' 도구를 실행할까요? ({why})\n{shown}")
    return typer.confirm("승인", default=False)


def register(app: typer.Typer) -> None:
    """Add `dure tools …` to the main CLI."""
    app.add_typer(tools_app, name="tools")
