"""The demo server over streamable HTTP on 127.0.0.1: a bearer token from the keyring,
refusals with their reason, and a server that dies and comes back."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.core.errors import UserError
from app.core.state import HumanMessage
from app.secrets.keyring_resolver import KeyringSecretResolver
from app.tools.mcp import McpManager, ServerConfig
from tests.services.memory_keyring import MemoryKeyring
from tests.tools.mcp.helpers import DEMO, agent_calling, free_port, results

TOKEN = "tok-7c1f9e"
CONFIG = {"thread_id": "t1", "tool_permissions": ["mcp:web"]}


class HttpDemo:
    """A test server (the demo server unless ``script`` says) as its own process, serving
    HTTP until stopped; ``extra`` are more arguments for it."""

    def __init__(self, port: int, script: Path = DEMO, extra: tuple[str, ...] = ()) -> None:
        self.port = port
        self.url = f"http://127.0.0.1:{port}/mcp"
        self.process: subprocess.Popen[bytes] | None = None
        self.script = script
        self.extra = extra or (() if script != DEMO else ("--token", TOKEN))

    def start(self) -> None:
        """Start the process and wait until it accepts connections."""
        args = [sys.executable, str(self.script), "--http", str(self.port), *self.extra]
        self.process = subprocess.Popen(args, stderr=subprocess.DEVNULL)
        import socket
        import time

        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            assert self.process.poll() is None, "the HTTP demo server exited"
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            time.sleep(0.05)
        raise AssertionError("the HTTP demo server did not start listening")

    def stop(self) -> None:
        """Stop the process if it runs."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(10)


@pytest.fixture
def http_demo() -> Iterator[HttpDemo]:
    server = HttpDemo(free_port())
    server.start()
    yield server
    server.stop()


def _keyring() -> KeyringSecretResolver:
    backend = MemoryKeyring()
    backend.set_password("parley", "web/token", TOKEN)
    return KeyringSecretResolver(backend=backend)


def _web(url: str, token: str = "{keyring:web/token}") -> ServerConfig:
    return ServerConfig(name="web", url=url, headers={"Authorization": f"Bearer {token}"})


async def test_tools_over_http_with_a_token_from_the_keyring(
    http_demo: HttpDemo, tmp_path: Path
) -> None:
    servers = [_web(http_demo.url).model_copy(update={"tools": {"echo": "allowed"}})]
    async with McpManager(servers, log_dir=tmp_path, secret_resolver=_keyring()) as manager:
        assert await manager.start() == {}
        calls = [{"name": "web__echo", "args": {"text": "over the wire"}, "id": "c1"}]
        agent, _ = agent_calling(manager.tools(), calls)
        done = await agent.ainvoke({"messages": [HumanMessage("Echo")]}, CONFIG)
        text = await manager.read_resource("web", "notes://today")
    assert [r.output for r in results(done)] == ["echo: over the wire"]
    assert [b.text for b in text] == ["Buy milk. Call Ada."]  # type: ignore[union-attr]
    assert TOKEN not in (tmp_path / "web.log").read_text()


async def test_a_wrong_token_is_reported_as_the_server_refusing_it(
    http_demo: HttpDemo, tmp_path: Path
) -> None:
    async with McpManager([_web(http_demo.url, "wrong")], log_dir=tmp_path) as manager:
        failures = await manager.start()
    assert failures["web"].startswith(
        f"server 'web' at {http_demo.url} answered HTTP 401; it wants credentials: check the "
        "server's headers (e.g. its token)"
    )


async def test_a_missing_secret_is_named(tmp_path: Path) -> None:
    servers = [_web("http://127.0.0.1:9/mcp", "{keyring:web/absent}")]
    resolver = KeyringSecretResolver(backend=MemoryKeyring())
    async with McpManager(servers, log_dir=tmp_path, secret_resolver=resolver) as manager:
        failures = await manager.start()
    assert failures["web"].startswith(
        "server 'web' could not start: secret 'web/absent' is not set; store it with: "
        "parley key set web/absent"
    )


async def test_nothing_listening_is_a_clear_reason(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}/mcp"
    async with McpManager([_web(url, "x")], log_dir=tmp_path, start_timeout=10) as manager:
        failures = await manager.start()
    assert failures["web"].startswith(f"server 'web' could not start: nothing answers at {url}")


@pytest.mark.slow
async def test_a_server_that_dies_mid_call_is_reconnected_once_it_is_back(
    http_demo: HttpDemo, tmp_path: Path
) -> None:
    servers = [_web(http_demo.url).model_copy(update={"tools": {"crash": "allowed"}})]
    async with McpManager(servers, log_dir=tmp_path, secret_resolver=_keyring()) as manager:
        await manager.start()
        conn = manager.connection("web")
        calls = [{"name": "web__crash", "args": {}, "id": "c1"}]
        agent, _ = agent_calling(manager.tools(), calls)
        done = await agent.ainvoke({"messages": [HumanMessage("Crash")]}, CONFIG)
        [result] = results(done)
        assert result.status == "error"
        assert str(result.output).startswith(
            f"Tool 'web__crash' failed: McpServerError: server 'web' at {http_demo.url} dropped "
            "the connection (Server disconnected without sending a response), during the call "
            "to 'crash'; it will be restarted"
        )
        http_demo.process.wait(10)  # type: ignore[union-attr]
        await asyncio.to_thread(http_demo.start)
        await asyncio.sleep(0.6)  # past the first restart's pause
        answer = await conn.call_tool("echo", {"text": "back"})
        assert answer.structured_content == {"result": "echo: back"}
        assert conn.state == "running"


async def test_calls_to_an_unknown_server_are_refused(tmp_path: Path) -> None:
    async with McpManager([], log_dir=tmp_path) as manager:
        refused = r"there is no MCP server named 'nope' \(configured: none\)"
        with pytest.raises(UserError, match=refused):
            await manager.read_resource("nope", "x://y")


@pytest.mark.slow
async def test_a_server_restarted_while_idle_keeps_answering_without_a_failed_call(
    http_demo: HttpDemo, tmp_path: Path
) -> None:
    async with McpManager([_web(http_demo.url)], log_dir=tmp_path, secret_resolver=_keyring()) as m:
        conn = m.connection("web")
        first = await conn.call_tool("echo", {"text": "one"})
        http_demo.stop()
        await asyncio.to_thread(http_demo.start)  # a new process knows no old session
        second = await conn.call_tool("echo", {"text": "two"})
    assert first.structured_content == {"result": "echo: one"}
    assert second.structured_content == {"result": "echo: two"}
