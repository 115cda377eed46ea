"""Every configured MCP server at once: their tools for the agent, resources and prompts to
attach, and stopping them all on quit."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from pathlib import Path
from types import TracebackType

import mcp.types as mcp_types

from app.core.errors import UserError
from app.core.state.message_block import ContentBlock
from app.core.tools.secrets import SecretSource
from app.tools.mcp.config import ServerConfig
from app.tools.mcp.connection import Backoff, McpConnection, McpServerError
from app.tools.mcp.content import prompt_blocks, resource_blocks
from app.tools.mcp.naming import effective_policy, tool_names
from app.tools.mcp.tool import McpTool, permission_for

__all__ = ["MAX_STARTING", "McpManager", "mcp_tools"]

MAX_STARTING = 8
"""How many servers :meth:`McpManager.start` starts at the same time; the others wait their
turn, so a list of hundreds does not launch hundreds of processes at once."""


class McpManager:
    """The connections to a set of servers (disabled ones left out), started when needed.

    Use as ``async with``: leaving it stops every server. :meth:`start` starts them all,
    ``max_starting`` at a time; a server that fails does not stop the others and keeps its
    reason in ``connection.reason``.
    """

    def __init__(
        self,
        servers: Iterable[ServerConfig],
        *,
        log_dir: str | Path,
        secret_resolver: SecretSource | None = None,
        start_timeout: float = 30.0,
        call_timeout: float = 120.0,
        backoff: Backoff | None = None,
        max_starting: int = MAX_STARTING,
    ) -> None:
        self.max_starting = max(1, max_starting)
        self.connections: dict[str, McpConnection] = {
            s.name: McpConnection(
                s,
                log_dir=log_dir,
                secret_resolver=secret_resolver,
                start_timeout=start_timeout,
                call_timeout=call_timeout,
                backoff=backoff,
            )
            for s in servers
            if not s.disabled
        }

    def connection(self, server: str) -> McpConnection:
        """The connection to ``server``; a clear error when there is no such server."""
        try:
            return self.connections[server]
        except KeyError:
            known = ", ".join(sorted(self.connections)) or "none"
            raise UserError(
                f"there is no MCP server named {server!r} (configured: {known})"
            ) from None

    async def start(self) -> dict[str, str]:
        """Start every server, :attr:`max_starting` at a time; return the reason of each that
        failed, by name."""
        turns = asyncio.Semaphore(self.max_starting)

        async def one(conn: McpConnection) -> str | None:
            try:
                async with turns:
                    await conn.ensure_started()
            except McpServerError as exc:
                return str(exc)
            return None

        conns = list(self.connections.values())
        results = await asyncio.gather(*(one(c) for c in conns))
        return {c.name: r for c, r in zip(conns, results, strict=True) if r is not None}

    def problems(self) -> dict[str, str]:
        """Why each server that is not running is not, by name (empty when all run)."""
        return {
            name: conn.reason
            for name, conn in self.connections.items()
            if conn.state != "running" and conn.reason
        }

    def tools(self) -> list[McpTool]:
        """The tools of every running server, named ``SERVER__TOOL``, minus those turned off."""
        tools: list[McpTool] = []
        taken: set[str] = set()
        for conn in self.connections.values():
            names = tool_names(conn.name, [t.name for t in conn.tools], taken)
            for info in conn.tools:
                policy = effective_policy(info, conn.config.policy, conn.config.tools)
                if policy != "off":
                    tools.append(McpTool(conn, info, names[info.name], policy))
        return tools

    def permissions(self) -> list[str]:
        """The permissions a run grants so that these servers' tools may be called."""
        return [permission_for(name) for name in self.connections]

    async def list_resources(self, server: str) -> list[mcp_types.Resource]:
        """The resources ``server`` offers."""
        return await self.connection(server).list_resources()

    async def read_resource(self, server: str, uri: str) -> list[ContentBlock]:
        """The content of resource ``uri`` of ``server``, as blocks to attach to a message
        (with the server's secrets taken out)."""
        conn = self.connection(server)
        return conn.redact_value(resource_blocks(await conn.read_resource(uri)))

    async def list_prompts(self, server: str) -> list[mcp_types.Prompt]:
        """The prompts ``server`` offers."""
        return await self.connection(server).list_prompts()

    async def get_prompt(
        self, server: str, name: str, arguments: dict[str, str] | None = None
    ) -> list[ContentBlock]:
        """Prompt ``name`` of ``server`` filled in, as blocks to attach to a message (with
        the server's secrets taken out)."""
        conn = self.connection(server)
        return conn.redact_value(prompt_blocks(await conn.get_prompt(name, arguments)))

    async def aclose(self) -> None:
        """Stop every server for good."""
        await asyncio.gather(*(c.close() for c in self.connections.values()))

    async def __aenter__(self) -> McpManager:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> None:
        await self.aclose()


@asynccontextmanager
async def mcp_tools(
    servers: Iterable[ServerConfig],
    secret_resolver: SecretSource | None = None,
    *,
    log_dir: str | Path,
    start_timeout: float = 30.0,
    call_timeout: float = 120.0,
) -> AsyncIterator[McpManager]:
    """Start the configured servers and yield the manager; stop them all on leaving.

    ``manager.tools()`` are the tools to offer and ``manager.permissions()`` the permissions
    to grant the run. A server that fails to start offers no tools and keeps its reason.
    """
    manager = McpManager(
        servers,
        log_dir=log_dir,
        secret_resolver=secret_resolver,
        start_timeout=start_timeout,
        call_timeout=call_timeout,
    )
    async with manager:
        await manager.start()
        yield manager
