"""A server's log is its user's alone: the logs folders 0700 and NAME.log 0600, also when an
older log (or folder) left readable by others is written to again."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from app.tools.mcp import McpManager
from tests.file_modes import mode, usual_umask
from tests.tools.mcp.helpers import demo_config


@pytest.fixture(autouse=True)
def _umask() -> Iterator[None]:
    with usual_umask():
        yield


async def test_a_servers_new_log_and_its_folders_are_private(tmp_path: Path) -> None:
    logs = tmp_path / "data" / "logs" / "mcp"
    async with McpManager([demo_config()], log_dir=logs) as manager:
        assert await manager.start() == {}
        answer = await manager.connection("demo").call_tool("echo", {"text": "hi"})
    assert answer.structured_content == {"result": "echo: hi"}
    assert "echo called with 'hi'" in (logs / "demo.log").read_text()
    assert [mode(logs / "demo.log"), mode(logs), mode(logs.parent)] == ["0o600", "0o700", "0o700"]


async def test_an_older_log_readable_by_others_is_narrowed_when_written_again(
    tmp_path: Path,
) -> None:
    logs = tmp_path / "logs" / "mcp"
    logs.mkdir(parents=True, mode=0o755)
    old = logs / "demo.log"
    old.write_text("[parley 2026-01-01T00:00:00+00:00] from an older version\n")
    old.chmod(0o644)
    async with McpManager([demo_config()], log_dir=logs) as manager:
        assert await manager.start() == {}
    assert old.read_text().startswith("[parley 2026-01-01T00:00:00+00:00] from an older version\n")
    assert [mode(old), mode(logs)] == ["0o600", "0o700"]
