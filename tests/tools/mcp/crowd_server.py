"""An MCP server that records how many of its kind are starting at the same moment.

``python crowd_server.py DIR``: before it answers it keeps a file in ``DIR/starting`` and
appends to ``DIR/seen`` how many such files it sees (itself included); the file goes just
before it serves over stdio, so the largest number in ``seen`` is the most servers that
were starting at once.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

folder = Path(sys.argv[1])
starting = folder / "starting"
mark = starting / str(os.getpid())
mark.touch()
with (folder / "seen").open("a", encoding="utf-8") as seen:
    seen.write(f"{len(os.listdir(starting))}\n")
time.sleep(0.2)  # a slow start, as a real server's often is

from mcp.server.mcpserver import MCPServer  # noqa: E402  (imported while still "starting")

server = MCPServer("crowd")


@server.tool()
def here() -> str:
    """Say it is here."""
    return "here"


with (folder / "seen").open("a", encoding="utf-8") as seen:
    seen.write(f"{len(os.listdir(starting))}\n")
mark.unlink()
server.run()
