"""One tool registry for every agent.

A tool has a name, a pydantic argument schema, a timeout and a function that returns a
`ToolResult(ok, content, sources)`. Running a tool never raises: unknown names, bad arguments,
exceptions and timeouts all come back as failed results the agent can read.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import re
import time
import unicodedata
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ValidationError

from dure.sources import Source
from dure.telemetry import observe_tool


class ToolResult(BaseModel):
    """What a tool gives back."""

    ok: bool
    content: str
    sources: list[Source] = []
    data: Any = None
    elapsed_ms: float = 0.0

    @classmethod
    def fail(cls, message: str) -> ToolResult:
        """A failed result with a Korean message for the agent (and the user)."""
        return cls(ok=False, content=message)


ToolFunc = Callable[..., ToolResult | str | Awaitable[ToolResult | str]]


@dataclass(frozen=True)
class Tool:
    """A callable the agents may use."""

    name: str
    description: str
    args_schema: type[BaseModel]
    func: ToolFunc
    timeout: float = 15.0
    #: What the tool does that needs a human's yes (`dure.tools.approval`); None: no effects.
    effects: str | None = None
    #: Its result is Dure's own computation (arithmetic, the clock), not text from outside
    #: that a model must read as data (`dure.untrusted`).
    own_output: bool = False
    #: Asked about wherever the turn runs unless the settings allow it by name: a tool from
    #: outside (an MCP server) whose effects Dure cannot check, whatever it claims of itself.
    ask_first: bool = False

    def openai_schema(self) -> dict[str, Any]:
        """The tool in OpenAI's function-calling format (what `bind_tools` accepts)."""
        params = self.args_schema.model_json_schema()
        params.pop("title", None)
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": params},
        }


class UnknownToolError(KeyError):
    """A tool name not in the registry (or not on an agent's allow-list)."""


def _normalise(value: Any) -> Any:
    if isinstance(value, str):
        return re.sub(r"\s+", " ", unicodedata.normalize("NFC", value)).strip().lower()
    if isinstance(value, dict):
        return {k: _normalise(v) for k, v in sorted(value.items()) if v not in (None, "", [])}
    if isinstance(value, list | tuple):
        return [_normalise(v) for v in value]
    return value


def signature(name: str, args: dict[str, Any]) -> str:
    """Name + normalised arguments: two calls with the same signature are duplicates."""
    return f"{name}:{json.dumps(_normalise(args), ensure_ascii=False, sort_keys=True)}"


class ToolRegistry:
    """Named tools; `allow()` gives an agent its subset."""

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        for t in tools:
            self.register(t)

    def register(self, tool: Tool) -> Tool:
        """Add a tool (a name may be registered once)."""
        if tool.name in self._tools:
            raise ValueError(f"tool {tool.name!r} registered twice")
        self._tools[tool.name] = tool
        return tool

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __len__(self) -> int:
        return len(self._tools)

    def names(self) -> list[str]:
        """Registered names, in registration order."""
        return list(self._tools)

    def get(self, name: str) -> Tool:
        """The tool called `name`, or `UnknownToolError`."""
        try:
            return self._tools[name]
        except KeyError:
            raise UnknownToolError(name) from None

    def allow(self, names: Iterable[str]) -> ToolRegistry:
        """A registry holding only `names` (each must exist)."""
        return ToolRegistry(self.get(n) for n in names)

    def schemas(self) -> list[dict[str, Any]]:
        """OpenAI function schemas of every tool."""
        return [t.openai_schema() for t in self._tools.values()]

    def manifest(self) -> str:
        """A plain-text list of tools and their arguments, for planner prompts."""
        lines = []
        for t in self._tools.values():
            props = t.args_schema.model_json_schema().get("properties", {})
            args = ", ".join(
                f"{k}: {v.get('description') or v.get('type', '')}" for k, v in props.items()
            )
            lines.append(f"- {t.name}({args}): {t.description}")
        return "\n".join(lines)

    async def run(self, name: str, args: dict[str, Any] | None = None) -> ToolResult:
        """Run one tool; every failure becomes `ToolResult(ok=False)`."""
        started = time.perf_counter()
        result = await self._run(name, args or {})
        result.elapsed_ms = (time.perf_counter() - started) * 1000
        observe_tool(name, args or {}, result, started)
        return result

    async def _run(self, name: str, args: dict[str, Any]) -> ToolResult:
        if name not in self._tools:
            return ToolResult.fail(f"알 수 없는 도구입니다: {name}")
        tool = self._tools[name]
        try:
            parsed = tool.args_schema.model_validate(args)
        except ValidationError as e:
            problems = "; ".join(f"{'.'.join(map(str, x['loc']))}: {x['msg']}" for x in e.errors())
            return ToolResult.fail(f"{name} 도구의 인자가 올바르지 않습니다 ({problems})")
        kwargs = parsed.model_dump()
        try:
            if inspect.iscoroutinefunction(tool.func):
                out = await asyncio.wait_for(tool.func(**kwargs), tool.timeout)
            else:
                out = await asyncio.wait_for(asyncio.to_thread(tool.func, **kwargs), tool.timeout)
                if inspect.isawaitable(out):  # a plain callable (lambda, method) of async code
                    out = await asyncio.wait_for(out, tool.timeout)
        except TimeoutError:
            return ToolResult.fail(f"{name} 도구가 {tool.timeout:g}초 안에 끝나지 않았습니다.")
        except Exception as e:  # a tool's own bug must not crash the turn
            return ToolResult.fail(
                f"{name} 도구 실행 중 오류가 발생했습니다: {type(e).__name__}: {e}"
            )
        return out if isinstance(out, ToolResult) else ToolResult(ok=True, content=str(out))
