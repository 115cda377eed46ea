"""``McpService.open`` and ``check``: the servers of a data folder started without a workspace,
with their secrets from the keyring, and how each is — real stdio servers, a real mcp.json."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from app.services.mcp.service import McpService
from app.services.mcp.status import ServerStatus, ToolStatus
from tests.services.memory_keyring import MemoryKeyring
from tests.tools.mcp.helpers import DEMO


def _write_servers(data_dir: Path) -> None:
    (data_dir / "mcp.json").write_text(
        json.dumps(
            {
                "mcpServers": {
                    "demo": {
                        "command": sys.executable,
                        "args": [str(DEMO)],
                        "env": {"DEMO_USER": "{keyring:mcp/demo/DEMO_USER}"},
                        "policy": "approval",
                        "tools": {"crash": "off", "echo": "allowed"},
                    },
                    "later": {"command": sys.executable, "args": [str(DEMO)], "disabled": True},
                    "broken": {"command": sys.executable, "policy": "sometimes"},
                }
            }
        )
    )


async def test_check_starts_the_servers_with_keyring_secrets_and_says_how_each_is(
    tmp_path: Path, memory_keyring: MemoryKeyring
) -> None:
    memory_keyring.set_password("parley", "mcp/demo/DEMO_USER", "ada")
    _write_servers(tmp_path)
    service = await McpService.open(tmp_path)
    try:
        status = await service.check()
        assert service.manager is not None
        said = await service.manager.connections["demo"].call_tool("whoami", {})
    finally:
        await service.aclose()
    assert [c.text for c in said.content if c.type == "text"] == ["ada"]  # from the keyring
    assert status.config == tmp_path / "mcp.json"
    demo, later = status.servers
    reaches = f"{sys.executable} {DEMO}"
    assert (demo.name, demo.transport, demo.reaches) == ("demo", "stdio", reaches)
    assert (demo.state, demo.reason, demo.log) == (
        "running",
        None,
        tmp_path / "logs" / "mcp" / "demo.log",
    )
    tools = {t.name: t for t in demo.tools}
    assert tools["demo__add"] == ToolStatus("demo__add", "approval", "Add two whole numbers.", True)
    assert tools["demo__echo"].policy == "allowed"
    assert tools["crash"] == ToolStatus("crash", "off", tools["crash"].about, False)
    assert later == ServerStatus("later", "stdio", reaches, "disabled", None)
    assert list(status.problems) == ["broken"]
    assert "policy" in status.problems["broken"]


async def test_a_secret_missing_from_the_keyring_is_the_reason_its_server_is_not_running(
    tmp_path: Path, memory_keyring: MemoryKeyring
) -> None:
    _write_servers(tmp_path)
    service = await McpService.open(tmp_path)
    try:
        status = await service.check()
    finally:
        await service.aclose()
    demo = status.servers[0]
    assert demo.state == "failed"
    assert demo.tools == ()
    assert "parley key set mcp/demo/DEMO_USER" in (demo.reason or "")


async def test_check_with_no_mcp_json_starts_nothing(
    tmp_path: Path, memory_keyring: MemoryKeyring
) -> None:
    service = await McpService.open(tmp_path)
    try:
        status = await service.check()
    finally:
        await service.aclose()
    assert (status.config, status.servers, status.problems) == (tmp_path / "mcp.json", [], {})
    assert service.manager is None
