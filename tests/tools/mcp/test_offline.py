"""Offline, an MCP server over HTTP on another computer (127.0.0.2 stands in) does not start:
it sees no connection, and the reason says Parley is offline and how to allow it."""

from __future__ import annotations

import select
import socket
from pathlib import Path

from app.core.netgate import GATE, install
from app.tools.mcp import McpManager, ServerConfig


async def test_an_http_server_on_another_computer_does_not_start_offline(
    tmp_path: Path,
) -> None:
    listening = socket.create_server(("127.0.0.2", 0))
    port = listening.getsockname()[1]
    install().offline = True
    try:
        config = ServerConfig(name="web", url=f"http://127.0.0.2:{port}/mcp")
        async with McpManager([config], log_dir=tmp_path) as manager:
            failures = await manager.start()
        ready, _, _ = select.select([listening], [], [], 0.2)
    finally:
        GATE.offline = False
        listening.close()
    assert not ready, "the server saw a connection"
    assert failures["web"].startswith(
        f"server 'web' could not start: Parley is offline, so it did not connect to "
        f"127.0.0.2:{port} for the MCP server web. To allow it, turn offline mode off"
    )
