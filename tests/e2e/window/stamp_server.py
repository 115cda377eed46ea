"""An MCP server for the journeys where a saved agent's delegate works, run over stdio:
``stamp`` writes its label to the log at once; ``slow_stamp`` writes ``start LABEL``, waits
while the hold file exists, then writes ``done LABEL``.

Its Parley process may be killed while a call waits: the server then exits without finishing
the call (a call that finished later would be one no Parley asked for).

Run: ``python stamp_server.py LOG HOLD``; :func:`stamp_config` is its entry in ``mcp.json``.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from mcp.server.mcpserver import MCPServer

if TYPE_CHECKING:
    from app.tools.mcp import ServerConfig

SERVER = "stamps"
"""The server's name: its tools are offered as ``stamps__stamp`` and ``stamps__slow_stamp``."""
STAMP = f"{SERVER}__stamp"
SLOW_STAMP = f"{SERVER}__slow_stamp"

server = MCPServer(SERVER)


def _log(line: str) -> None:
    with Path(sys.argv[1]).open("a", encoding="utf-8") as handle:
        handle.write(line + "\n")


@server.tool()
def stamp(label: str) -> str:
    """Write a label to the log."""
    _log(label)
    return f"stamped {label}"


@server.tool()
async def slow_stamp(label: str) -> str:
    """Write a label to the log, slowly."""
    parent = os.getppid()
    _log(f"start {label}")
    while True:
        if os.getppid() != parent:  # the Parley that asked is gone: so is the call
            os._exit(0)
        if not Path(sys.argv[2]).exists():
            break
        await asyncio.sleep(0.05)
    _log(f"done {label}")
    return f"stamped {label} slowly"


def stamp_config(log: Path, hold: Path) -> ServerConfig:
    """This server as ``mcp.json`` holds it: its tools run without asking."""
    from app.tools.mcp import ServerConfig

    return ServerConfig(
        name=SERVER,
        command=sys.executable,
        args=[str(Path(__file__)), str(log), str(hold)],
        policy="allowed",
        timeout=120,
    )


if __name__ == "__main__":
    server.run()
