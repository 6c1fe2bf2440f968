"""Tools of outside MCP servers (`[mcp.servers.NAME]` in dure.toml), as Dure tools.

Listed through `langchain-mcp-adapters` before a turn's graph is built (`prepare`), once per
server and `LISTED_SECONDS` per process; each call opens its own session (the adapter's
stateless way: a stdio server is spawned per call). A tool is named `SERVER_TOOL`, keeps its
server's JSON schema, and:

- runs only for the agents its server lists (`agents`), and only the tools it names (`tools`);
- is asked about before every call unless `approvals.AGENT.NAME = "allow"` (`Tool.ask_first`),
  whatever annotations (`readOnlyHint` …) its server claims;
- gives back text the agents read as data (`dure.untrusted`), never as instructions;
- fails as a result, in Korean, when its server is down, errs or is slower than `timeout`.

A server that cannot be listed leaves the turn without its tools and with a note saying so.
"""

from __future__ import annotations

import asyncio
import copy
import json
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import partial
from typing import Any, ClassVar

from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool
from pydantic import BaseModel, ConfigDict, SecretStr, create_model, model_validator

from dure.agent import AgentContext, Prepare
from dure.settings import McpServerSettings, Settings
from dure.tools.base import Tool, ToolResult

#: How long a server's listing is used before it is listed again; a failed one is retried
#: after `RETRY_SECONDS` (a down server must not cost every turn its timeout).
LISTED_SECONDS = 300.0
RETRY_SECONDS = 30.0
#: The context option that carries the listed tools to an agent's `Deps`.
OPTION = "mcp_tools"
EFFECTS = "외부 MCP 서버 '{server}'의 도구입니다 (무엇을 하는지 두레가 확인할 수 없습니다)"


class McpArgs(BaseModel):
    """The arguments of an MCP tool: anything its server's schema has; the required ones are
    checked here, the rest by the server. `model_json_schema` is the server's own schema."""

    model_config = ConfigDict(extra="allow")
    server_schema: ClassVar[dict[str, Any]] = {}

    @classmethod
    def model_json_schema(cls, *args: Any, **kwargs: Any) -> dict[str, Any]:
        """The server's schema, as sent to the model and shown to the planner."""
        return copy.deepcopy(cls.server_schema)

    @model_validator(mode="before")
    @classmethod
    def _required(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            raise ValueError("인자는 객체여야 합니다")
        missing = [n for n in cls.server_schema.get("required", []) if n not in data]
        if missing:
            raise ValueError(f"필수 인자가 없습니다: {', '.join(missing)}")
        return data


@dataclass(frozen=True)
class _Listing:
    tools: tuple[BaseTool, ...] | None
    problem: str | None
    until: float


_listings: dict[tuple[str, str], _Listing] = {}


def tool_name(server: str, tool: str) -> str:
    """`SERVER_TOOL` in the characters function calling allows, at most 64 of them."""
    return re.sub(r"[^A-Za-z0-9_-]", "_", f"{server}_{tool}")[:64]


def _secrets(values: dict[str, SecretStr] | None) -> dict[str, str] | None:
    return None if values is None else {k: v.get_secret_value() for k, v in values.items()}


def _connection(server: McpServerSettings) -> dict[str, Any]:
    if server.command is not None:
        stdio: dict[str, Any] = {"transport": "stdio", "command": server.command}
        return {**stdio, "args": server.args, "env": _secrets(server.env)}
    http = {"transport": "streamable_http", "url": server.url, "headers": _secrets(server.headers)}
    return {**http, "timeout": server.timeout, "sse_read_timeout": server.timeout}


def _reason(error: BaseException) -> str:
    """The innermost cause, in one line (the SDK wraps transport errors in task groups)."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    text = str(error).splitlines()[0] if str(error) else ""
    return f"{type(error).__name__}: {text}"[:200] if text else type(error).__name__


def _slow(name: str, server: McpServerSettings) -> str:
    return f"MCP 서버 '{name}'가 {server.timeout:g}초 안에 답하지 않았습니다"


async def _listed(name: str, server: McpServerSettings) -> _Listing:
    key = (name, json.dumps(_connection(server), sort_keys=True, default=str))
    now = time.monotonic()
    if (known := _listings.get(key)) and now < known.until:
        return known
    from langchain_mcp_adapters.client import MultiServerMCPClient

    client = MultiServerMCPClient({name: _connection(server)})  # type: ignore[dict-item]
    try:
        found = await asyncio.wait_for(client.get_tools(server_name=name), server.timeout)
        listing = _Listing(tuple(found), None, now + LISTED_SECONDS)
    except TimeoutError:
        listing = _Listing(None, _slow(name, server), now + RETRY_SECONDS)
    except Exception as e:  # a server that is down must not fail the turn
        problem = f"MCP 서버 '{name}'에 연결하지 못했습니다 ({_reason(e)})"
        listing = _Listing(None, problem, now + RETRY_SECONDS)
    _listings[key] = listing
    return listing


async def server_problem(name: str, server: McpServerSettings) -> str | None:
    """Why the server's tools cannot be listed now (Korean), or None (`dure doctor`)."""
    return (await _listed(name, server)).problem


async def _call(
    name: str, server: McpServerSettings, tool: BaseTool, required: set[str], **args: Any
) -> ToolResult:
    """One call in a session of its own (arguments left empty are not sent); every failure a
    Korean result."""
    sent = {k: v for k, v in args.items() if v is not None or k in required}
    call = {"type": "tool_call", "id": "dure", "name": tool.name, "args": sent}
    try:
        reply = await asyncio.wait_for(tool.ainvoke(call), server.timeout)
    except TimeoutError:
        return ToolResult.fail(
            f"{_slow(name, server)}. 서버 상태를 확인하거나 timeout을 늘려 주세요."
        )
    except Exception as e:
        return ToolResult.fail(
            f"MCP 서버 '{name}'에 연결하지 못했습니다 ({_reason(e)}). 서버가 켜져 있는지 확인해 주세요."
        )
    text = reply.text if isinstance(reply, ToolMessage) else str(reply)
    if isinstance(reply, ToolMessage) and reply.status == "error":
        return ToolResult.fail(f"MCP 서버 '{name}'의 도구 {tool.name}가 오류를 냈습니다: {text}")
    return ToolResult(ok=True, content=text or "(빈 결과)")


def _as_tool(name: str, server: McpServerSettings, tool: BaseTool) -> Tool:
    schema = tool.args_schema if isinstance(tool.args_schema, dict) else {}
    called = tool_name(name, tool.name)
    args = create_model(f"{called}_args", __base__=McpArgs)
    args.server_schema = {"type": "object", "properties": {}, **schema}
    return Tool(
        name=called,
        description=f"[MCP {name}] {tool.description}"[:1024],
        args_schema=args,
        func=partial(_call, name, server, tool, set(schema.get("required", []))),
        timeout=server.timeout + 5,  # `_call` says it first, naming the server
        effects=EFFECTS.format(server=name),
        ask_first=True,
    )


async def mcp_tools(settings: Settings, agent: str) -> tuple[list[Tool], list[str]]:
    """The MCP tools `agent` may use, and a Korean note for each server that could not be
    listed (listed concurrently, each within its `timeout`)."""
    servers = {n: s for n, s in settings.mcp.servers.items() if agent in s.agents}
    listings = await asyncio.gather(*(_listed(n, s) for n, s in servers.items()))
    tools: list[Tool] = []
    notes: list[str] = []
    for (name, server), listing in zip(servers.items(), listings, strict=True):
        if listing.tools is None:
            notes.append(f"{listing.problem} — 그 서버의 도구 없이 답합니다.")
            continue
        offered = set(server.tools) if server.tools is not None else None
        tools += [
            _as_tool(name, server, t) for t in listing.tools if offered is None or t.name in offered
        ]
    return tools, notes


def preparer(agent: str) -> Prepare:
    """`AgentSpec.prepare` for `agent`: its MCP tools into `ctx.options[OPTION]`."""

    async def prepare(ctx: AgentContext) -> tuple[AgentContext, list[str]]:
        if not ctx.settings.mcp.servers:
            return ctx, []
        tools, notes = await mcp_tools(ctx.settings, agent)
        return replace(ctx, options={**ctx.options, OPTION: tools}), notes

    return prepare


def with_mcp(ctx: AgentContext, tools: Sequence[Tool]) -> list[Tool]:
    """`tools` and, after them, the turn's MCP tools whose names they do not already use."""
    taken = {t.name for t in tools}
    return [*tools, *(t for t in ctx.options.get(OPTION, ()) if t.name not in taken)]
