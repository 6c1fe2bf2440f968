"""Stand-in tools for the plan-then-execute unit tests (no network, instant or short waits)."""

from __future__ import annotations

import asyncio

import pytest
from pydantic import BaseModel, Field

from dure.tools.base import Tool, ToolRegistry


class TextArgs(BaseModel):
    text: str = Field(description="입력")


class Probe:
    """Tools that record their calls and how many of them ran at once."""

    def __init__(self) -> None:
        self.active = 0
        self.max_active = 0
        self.started: list[str] = []
        self.inputs: dict[str, str] = {}

    def tool(self, name: str, delay: float = 0.01, fail: bool = False) -> Tool:
        async def run(text: str) -> str:
            self.started.append(name)
            self.inputs[name] = text
            self.active += 1
            self.max_active = max(self.max_active, self.active)
            try:
                await asyncio.sleep(delay)
            finally:
                self.active -= 1
            if fail:
                raise RuntimeError(f"{name} 실패")
            return f"{name}({text})"

        return Tool(name, f"{name} 도구", TextArgs, run)

    def registry(self, *tools: Tool) -> ToolRegistry:
        return ToolRegistry(tools)


@pytest.fixture
def probe() -> Probe:
    return Probe()
