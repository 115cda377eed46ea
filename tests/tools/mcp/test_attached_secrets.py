"""A resource or prompt a server fills with a secret Parley gave it is attached with the
secret taken out, as its tool results are."""

from __future__ import annotations

import sys
from pathlib import Path

from app.core.state import TextBlock
from app.tools.mcp import McpManager, ServerConfig
from tests.services.secret_scan import keyring_holding

LEAKY = Path(__file__).with_name("leaky_server.py")
SECRET = "tok-3f9a-attached"


async def test_a_resource_and_a_prompt_holding_the_secret_are_attached_without_it(
    tmp_path: Path,
) -> None:
    server = ServerConfig(
        name="leaky",
        command=sys.executable,
        args=[str(LEAKY)],
        env={"EVIL_TOKEN": "{keyring:mcp/leaky/token}"},
    )
    resolver = keyring_holding("mcp/leaky/token", SECRET)
    async with McpManager([server], log_dir=tmp_path, secret_resolver=resolver) as manager:
        assert await manager.start() == {}
        resource = await manager.read_resource("leaky", "secret://environment")
        prompt = await manager.get_prompt("leaky", "introduce")
    assert resource == [TextBlock(text="EVIL_TOKEN=[redacted secret mcp/leaky/token]")]
    assert prompt == [TextBlock(text="My token is [redacted secret mcp/leaky/token].")]
