"""``McpService``: the user's MCP servers — their ``mcp.json``, starting and stopping them, what
each runs and offers, starting them all and saying how each is (:meth:`McpService.check`),
adding, changing and removing one, and keeping a server's secret in the keyring.

Servers start in the background (:meth:`McpService.start_in_background`) and stop when the
service closes; a server that fails offers no tools and says why in a
:class:`~app.services.events.ToolsChanged` event on the bus.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.core.errors import UserError
from app.core.tools.secrets import SecretSource
from app.services.bus import EventBus
from app.services.events import ToolsChanged
from app.services.mcp.config import McpConfig, McpConfigError, mcp_log_dir, parse_server
from app.services.mcp.status import McpStatus, server_statuses
from app.services.tool_entry import ToolEntry, ToolFix, Unavailable, first_line
from app.store.paths import resolve_data_dir
from app.tools.mcp.config import ServerConfig, valid_server_name

if TYPE_CHECKING:
    from app.tools.mcp.manager import McpManager
    from app.tools.mcp.tool import McpTool

_MANAGER = "app.tools.mcp.manager"
_SEPARATOR = "__"  # between a server's name and its tool's (the SDK's naming module says so)
_CANNOT_WORK = ("failed", "stopped")
"""A server in these states does not answer its tools' calls until it is started again."""

__all__ = ["McpService", "McpStatus", "ServerInfo"]

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class ServerInfo:
    """One configured MCP server as the settings page shows it (no secret values in it: an
    environment value kept in the keyring shows as ``{keyring:REF}``)."""

    name: str
    command: str
    args: list[str]
    env: dict[str, str]
    enabled: bool
    state: str
    """``disabled``, ``starting``, ``running``, ``failed``, ``crashed``, ``stopped`` or
    ``invalid`` (the entry in ``mcp.json`` cannot be used)."""
    reason: str | None
    tools: list[ToolEntry] = field(default_factory=list)
    url: str | None = None
    """The address of a streamable-HTTP server (``command`` is then the same address)."""
    headers: dict[str, str] = field(default_factory=dict)
    policy: str | None = None
    """What every tool of the server may do (``allowed``, ``approval``, ``off``), or None."""


class McpService:
    """The MCP servers of one data directory; see the module docstring."""

    def __init__(
        self,
        data_dir: Path,
        *,
        events: EventBus,
        secret_resolver: SecretSource | None = None,
        start_timeout: float = 30.0,
    ) -> None:
        self.data_dir = Path(data_dir)
        self._emit = events.emit
        self._secrets = secret_resolver
        self._start_timeout = start_timeout
        self.config = McpConfig.for_data_dir(self.data_dir)
        self._manager: McpManager | None = None
        self._starting: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()
        self._closed = False
        self._configured: dict[str, bool] = {}
        """Each server in ``mcp.json`` when they were last started, and whether it is on."""

    @classmethod
    async def open(cls, data_dir: str | os.PathLike[str] | None) -> McpService:
        """The servers of ``data_dir`` (``--data-dir``, ``PARLEY_DATA_DIR`` or the user data
        directory) with their secrets read from the system keyring (opened off the loop) and
        a bus of their own: for a command that opens no workspace. Nothing starts yet;
        :meth:`aclose` stops what did."""
        from app.services.keys import open_keyring

        secrets = await open_keyring()
        return cls(resolve_data_dir(data_dir), events=EventBus(), secret_resolver=secrets)

    def tools(self) -> list[McpTool]:
        """The tools of every started server (also one that stopped since; see
        :meth:`unavailable`)."""
        return self._manager.tools() if self._manager is not None else []

    def entries(self) -> list[ToolEntry]:
        """:meth:`tools` as the composer's menu lists them, grouped by server, each with why
        it cannot work now, if it cannot."""
        entries = []
        for tool in self.tools():
            server = tool.connection.name
            label = getattr(tool, "remote_name", tool.name)
            entries.append(
                ToolEntry(
                    tool.name,
                    label,
                    first_line(tool.description),
                    server,
                    self.unavailable(tool.name),
                )
            )
        return entries

    def unavailable(self, name: str) -> Unavailable | None:
        """Why the MCP tool ``name`` (``SERVER__TOOL``) cannot work now — its server is turned
        off, failed, or stopped — or ``None`` when it can (or ``name`` is no server's)."""
        servers = [s for s in self._configured if name.startswith(s + _SEPARATOR)]
        if not servers:
            return None
        server = max(servers, key=len)
        if not self._configured[server]:
            return Unavailable(f"the MCP server {server} is turned off", ToolFix.START_SERVER)
        running = self._manager.connections if self._manager is not None else {}
        conn = running.get(server)
        if conn is None or conn.state not in _CANNOT_WORK or not (conn.starts or conn.reason):
            return None  # starting, running, or restarting after a crash
        return Unavailable(
            f"the MCP server {server} is not running" + (f": {conn.reason}" if conn.reason else ""),
            ToolFix.START_SERVER,
        )

    @property
    def manager(self) -> McpManager | None:
        """The running servers, or None before they start."""
        return self._manager

    @property
    def secrets(self) -> SecretSource | None:
        """Where ``{keyring:REF}`` values are looked up."""
        return self._secrets

    def changed(self) -> None:
        """Tell the window the tools on offer changed (e.g. a policy was set)."""
        self._emit(ToolsChanged(self._manager.problems() if self._manager else {}))

    async def start_servers(self) -> None:
        """Start the enabled servers (again, stopping the running ones first); report a
        :class:`ToolsChanged` when each attempt is done."""
        async with self._lock:
            if self._closed:
                return
            old, self._manager = self._manager, None
            if old is not None:
                await old.aclose()
            try:
                servers = await asyncio.to_thread(self.config.servers)
            except McpConfigError as exc:
                self._configured = {}
                self._emit(ToolsChanged({"mcp.json": str(exc)}))
                return
            self._configured = {s.name: not s.disabled for s in servers}
            if not servers:
                self._emit(ToolsChanged({}))
                return
            # the SDK takes long to import: off the loop, so the window stays responsive
            manager_module = await asyncio.to_thread(importlib.import_module, _MANAGER)
            manager = manager_module.McpManager(
                servers,
                log_dir=mcp_log_dir(self.data_dir),
                secret_resolver=self._secrets,
                start_timeout=self._start_timeout,
            )
            self._manager = manager
            self._emit(ToolsChanged())
            problems = await manager.start()
            self._emit(ToolsChanged(problems))

    def start_in_background(self) -> asyncio.Task[None]:
        """Start (or restart) the servers without waiting; :meth:`wait_started` waits."""
        previous = self._starting
        if previous is not None and not previous.done():
            previous.cancel()
        task = asyncio.create_task(self.start_servers())
        task.add_done_callback(_log_failure)
        self._starting = task
        return task

    async def wait_started(self) -> None:
        """Wait for the latest background start (for tests and shutdown)."""
        if self._starting is not None:
            await asyncio.gather(self._starting, return_exceptions=True)

    async def check(self) -> McpStatus:
        """Start the enabled servers now (stopping running ones first), wait until each runs
        or failed, and say how each is, with every tool it lists and what that tool may do;
        :class:`McpConfigError` when ``mcp.json`` cannot be read."""

        def read() -> tuple[list[ServerConfig], dict[str, str]]:
            return self.config.servers(), self.config.problems()

        servers, problems = await asyncio.to_thread(read)
        if servers:
            await self.start_servers()
        return McpStatus(self.config.path, server_statuses(servers, self._manager), problems)

    async def servers(self) -> list[ServerInfo]:
        """Every configured server with its state, reason and tools."""
        raw = await asyncio.to_thread(self.config._read)
        entries: dict[str, Any] = raw.get("mcpServers", {})
        running = self._manager.connections if self._manager is not None else {}
        tools = self.entries()
        out = []
        for name, entry in entries.items():
            try:
                server = parse_server(name, entry)
            except McpConfigError as exc:
                out.append(ServerInfo(name, "", [], {}, False, "invalid", str(exc)))
                continue
            conn = running.get(name)
            if server.disabled:
                state, reason = "disabled", None
            elif conn is None:
                state, reason = "starting", None
            else:
                state, reason = conn.state, conn.reason
            out.append(
                ServerInfo(
                    name,
                    server.command or server.url or "",
                    list(server.args),
                    dict(server.env),
                    not server.disabled,
                    state,
                    reason,
                    [t for t in tools if t.group == name],
                    server.url,
                    dict(server.headers),
                    server.policy,
                )
            )
        return out

    async def save_server(
        self,
        name: str,
        command: str,
        args: Sequence[str] = (),
        env: dict[str, str] | None = None,
        *,
        replace: str | None = None,
    ) -> None:
        """Add the stdio server ``name`` (or change server ``replace``) and restart servers."""
        problem = valid_server_name(name)
        if problem:
            raise UserError(problem)
        if not command.strip():
            raise UserError("the server needs a command to run")
        try:
            server = ServerConfig(
                name=name, command=command.strip(), args=list(args), env=dict(env or {})
            )
        except ValueError as exc:
            raise UserError(f"server {name!r} cannot be saved: {exc}") from None

        def write() -> None:
            if replace is None:
                self.config.add(server)
                return
            try:  # keep what the form does not show (policies, disabled, timeout)
                kept = self.config.get(replace).model_dump()
            except McpConfigError:
                kept = {}
            shown = server.model_dump(include={"command", "args", "env"})
            merged = ServerConfig.model_validate({**kept, "url": None, **shown, "name": name})
            if replace != name:
                if name in self.config._read()["mcpServers"]:
                    raise McpConfigError(f"a server named {name!r} is already configured")
                self.config.remove(replace)
            self.config.add(merged, replace=True)

        await asyncio.to_thread(write)
        self.start_in_background()

    async def store_secret(self, server: str, variable: str, value: str) -> str:
        """Keep ``value`` in the keyring for ``server``'s environment variable ``variable`` and
        return the ``{keyring:REF}`` text to put in the environment instead of the value."""
        from app.secrets.keyring_resolver import KeyringSecretResolver

        variable = variable.strip()
        if not variable.replace("_", "").isalnum():
            raise UserError(
                f"{variable!r} cannot name an environment variable: use letters, digits and '_'"
            )
        if not value:
            raise UserError("the secret is empty; paste its value")
        ref = f"mcp/{server}/{variable}"
        resolver = self._secrets
        if not isinstance(resolver, KeyringSecretResolver):
            resolver = await asyncio.to_thread(KeyringSecretResolver)
        await asyncio.to_thread(resolver.set, ref, value)
        return f"{{keyring:{ref}}}"

    async def remove_server(self, name: str) -> None:
        """Remove server ``name`` and stop it."""
        await asyncio.to_thread(self.config.remove, name)
        self.start_in_background()

    async def set_server_enabled(self, name: str, enabled: bool) -> None:
        """Enable or disable server ``name`` (a disabled server is kept but not started)."""
        await asyncio.to_thread(self.config.edit, name, disabled=not enabled)
        self.start_in_background()

    async def aclose(self) -> None:
        """Stop every server for good."""
        self._closed = True
        if self._starting is not None and not self._starting.done():
            self._starting.cancel()
            await asyncio.gather(self._starting, return_exceptions=True)
        async with self._lock:
            if self._manager is not None:
                await self._manager.aclose()
                self._manager = None


def _log_failure(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("starting the MCP servers failed", exc_info=task.exception())
