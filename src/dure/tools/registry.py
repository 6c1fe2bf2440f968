"""The shared registry: the assistant's seven tools, configured from the settings."""

from __future__ import annotations

from dure.settings import Settings
from dure.tools.base import ToolRegistry
from dure.tools.calculator import calculator_tool
from dure.tools.clock import datetime_tool
from dure.tools.files import read_file_tool
from dure.tools.python_repl import python_repl_tool
from dure.tools.weather import weather_tool
from dure.tools.web import web_search_tool
from dure.tools.wikipedia import wikipedia_tool

#: The tools in the order docs/agents/assistant.md lists them.
ASSISTANT_TOOLS = (
    "calculator",
    "get_current_datetime",
    "get_weather",
    "search_wikipedia",
    "web_search",
    "python_repl",
    "read_file",
)


def default_registry(settings: Settings) -> ToolRegistry:
    """All seven tools. A tool whose key is missing is still offered: it answers with how to
    configure it, which is more useful to the user than a silently absent capability."""
    return ToolRegistry(
        [
            calculator_tool(),
            datetime_tool(),
            weather_tool(settings),
            wikipedia_tool(settings),
            web_search_tool(settings),
            python_repl_tool(settings),
            read_file_tool(settings),
        ]
    )
