"""The Model Context Protocol both ways.

- `dure.mcp.client`: tools of the MCP servers in the settings (`[mcp.servers.NAME]`) for the
  assistant and plan-then-execute agents, under their allow-lists and approvals.
- `dure.mcp.server`: Dure's agents, search and documents as an MCP server (`dure mcp` over
  stdio, `/mcp` on `dure serve`); it is an interface and imports the server, so nothing below
  the interfaces imports it.
"""
