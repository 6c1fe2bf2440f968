"""`[mcp.servers.NAME]` in dure.toml: read as the client uses it, and refused clearly when a
server names no transport, two of them, or a name its tools cannot carry."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from dure.mcp.client import tool_name
from dure.settings import McpServerSettings, Settings

from .test_settings import clean_env  # noqa: F401 (autouse: no DURE_* variable, no dure.toml)

TOML = """
[mcp.servers.files]
command = "npx"
args = ["-y", "@modelcontextprotocol/server-filesystem", "/srv"]

[mcp.servers.crm]
url = "https://crm.example.com/mcp"
headers = { Authorization = "Bearer x" }
timeout = 3
agents = ["assistant"]
tools = ["find_customer"]

[approvals.assistant]
crm_find_customer = "allow"
"""


def test_servers_are_read_from_dure_toml(tmp_path: Path) -> None:
    (tmp_path / "dure.toml").write_text(TOML, encoding="utf-8")
    s = Settings()
    files, crm = s.mcp.servers["files"], s.mcp.servers["crm"]
    assert (files.command, files.args[-1], files.url) == ("npx", "/srv", None)
    assert files.agents == ["assistant", "pte"] and files.tools is None and files.timeout == 10
    assert (crm.url, crm.headers["Authorization"].get_secret_value(), crm.timeout) == (
        "https://crm.example.com/mcp",
        "Bearer x",
        3,
    )
    assert "Bearer x" not in str(s.masked())  # `dure doctor` prints the settings
    assert (crm.agents, crm.tools) == (["assistant"], ["find_customer"])
    assert s.approvals["assistant"][tool_name("crm", "find_customer")] == "allow"


@pytest.mark.parametrize(
    ("server", "message"),
    [
        ({}, "정확히 하나"),
        ({"command": "x", "url": "http://127.0.0.1/mcp"}, "정확히 하나"),
        ({"command": "x", "timeout": 0}, "greater than 0"),
    ],
)
def test_a_server_needs_exactly_one_transport(server: dict, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        McpServerSettings(**server)


def test_a_server_name_must_fit_in_its_tools_names() -> None:
    with pytest.raises(ValidationError, match="MCP 서버 이름"):
        Settings(mcp={"servers": {"my server": {"command": "x"}}})


def test_tool_names_keep_to_what_function_calling_allows() -> None:
    assert tool_name("crm", "find.customer!") == "crm_find_customer_"
    assert len(tool_name("a" * 32, "b" * 60)) == 64
