"""Many configured servers start a few at a time, not all at once."""

from __future__ import annotations

import sys
from pathlib import Path

from app.tools.mcp import McpManager, ServerConfig

CROWD = Path(__file__).with_name("crowd_server.py")


async def test_no_more_than_max_starting_servers_start_at_once(tmp_path: Path) -> None:
    (tmp_path / "starting").mkdir()
    servers = [
        ServerConfig(name=f"s{i}", command=sys.executable, args=[str(CROWD), str(tmp_path)])
        for i in range(6)
    ]
    manager = McpManager(servers, log_dir=tmp_path / "logs", max_starting=2)
    async with manager:
        assert await manager.start() == {}
        assert [c.state for c in manager.connections.values()] == ["running"] * 6
        seen = [int(n) for n in (tmp_path / "seen").read_text().split()]
    assert len(seen) == 12  # each of the six looked twice
    assert max(seen) <= 2
    assert list((tmp_path / "starting").iterdir()) == []
