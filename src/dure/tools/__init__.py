"""Tools the agents call, behind one registry."""

from dure.tools.base import Tool, ToolRegistry, ToolResult, UnknownToolError, signature

__all__ = ["Tool", "ToolRegistry", "ToolResult", "UnknownToolError", "signature"]
