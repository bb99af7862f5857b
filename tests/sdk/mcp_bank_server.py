"""A local MCP server (the `mcp` package's own `MCPServer`, over stdio) with one bank tool.

Started by the differential suite through the Agents SDK's `MCPServerStdio`. Each call
the server really runs appends a line to the file named by the first argument, in the
suite's format (`{"tool": ..., "arguments": {...}}`), so a test counts what ran.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from mcp.server.mcpserver import MCPServer

RUN_LOG = Path(sys.argv[1])
"""Where each run of a tool is written, one JSON line a run."""

server = MCPServer("bank")


@server.tool()
def wire_money(amount: float, to: str) -> str:
    """Wire money to an account."""
    with RUN_LOG.open("a") as file:
        file.write(json.dumps({"tool": "wire_money", "arguments": {"amount": amount, "to": to}}))
        file.write("\n")
    return f"wired {amount} to {to}"


if __name__ == "__main__":
    server.run("stdio")
