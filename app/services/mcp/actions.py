"""What the window does to MCP servers beyond adding a command: streamable-HTTP servers,
the policy of a server and of each of its tools (applied to the running servers at once, so
the next call follows it), testing a server's connection, and importing another app's
``mcpServers`` file. Each function works on the window's
:class:`~app.services.mcp.service.McpService`."""

from __future__ import annotations

import asyncio
import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import ValidationError

from app.core.errors import UserError
from app.services.mcp.config import McpConfigError, mcp_log_dir
from app.services.mcp.importing import ImportPlan, ImportReport, apply_import, read_import
from app.tools.mcp.config import DEFAULT_POLICY, ServerConfig, ToolPolicy, valid_server_name

if TYPE_CHECKING:
    from app.services.mcp.service import McpService

__all__ = [
    "DEFAULT_POLICY",
    "ToolPolicyRow",
    "form_config",
    "import_servers",
    "parse_headers",
    "probe_server",
    "read_servers_file",
    "save_http_server",
    "set_policy",
    "tool_policies",
]


@dataclass(frozen=True, slots=True)
class ToolPolicyRow:
    """One tool of a running server with what it may do."""

    name: str
    """The tool's own name (as the server calls it)."""
    description: str
    suggested: ToolPolicy
    """What its annotations suggest: ``allowed`` for one that says it is read-only, else
    ``approval``. The server's claim: the tool asks first until the user chooses."""
    chosen: ToolPolicy | None
    """The user's choice for this tool, or None to follow the server's setting."""


def parse_headers(text: str) -> dict[str, str]:
    """``Name: value`` lines (blank lines and ``#`` comments skipped)."""
    headers: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, sep, value = line.partition(":")
        if not sep or not name.strip() or " " in name.strip():
            raise UserError(f"header line {number} should look like Name: value")
        headers[name.strip()] = value.strip()
    return headers


def form_config(
    name: str,
    *,
    command: str | None = None,
    args: list[str] | None = None,
    env: dict[str, str] | None = None,
    url: str | None = None,
    headers: dict[str, str] | None = None,
) -> ServerConfig:
    """The server a form describes (not saved): a command, or else an address."""
    name = name.strip() or "server"
    if url is not None and not url.strip():
        raise UserError("the server needs its address, e.g. https://example.com/mcp")
    if url is None and not (command or "").strip():
        raise UserError("the server needs a command to run")
    try:
        if url is not None:
            return ServerConfig(name=name, url=url.strip(), headers=dict(headers or {}))
        return ServerConfig(
            name=name, command=(command or "").strip(), args=list(args or []), env=dict(env or {})
        )
    except ValueError as exc:
        raise UserError(_reason(exc)) from None


def _reason(exc: ValueError) -> str:
    if isinstance(exc, ValidationError):
        return "; ".join(
            str(e["msg"]).removeprefix("Value error, ") for e in exc.errors(include_url=False)[:2]
        )
    return str(exc)


async def save_http_server(
    mcp: McpService,
    name: str,
    url: str,
    headers: dict[str, str] | None = None,
    *,
    replace: str | None = None,
) -> None:
    """Add the streamable-HTTP server ``name`` at ``url`` (or change server ``replace``)
    and restart the servers; what the form does not show (policies, off) is kept."""
    problem = valid_server_name(name)
    if problem:
        raise UserError(problem)
    if not url.strip():
        raise UserError("the server needs its address, e.g. https://example.com/mcp")
    try:
        server = ServerConfig(name=name, url=url.strip(), headers=dict(headers or {}))
    except ValueError as exc:
        raise UserError(f"server {name!r} cannot be saved: {_reason(exc)}") from None
    config = mcp.config

    def write() -> None:
        kept = {}
        if replace is not None:
            try:
                kept = config.get(replace).model_dump()
            except McpConfigError:
                kept = {}
        shown = server.model_dump(include={"url", "headers"})
        merged = ServerConfig.model_validate(
            {**kept, "command": None, "args": [], "env": {}, **shown, "name": name}
        )
        if replace is None:
            config.add(merged)
            return
        if replace != name:
            if name in config._read()["mcpServers"]:
                raise McpConfigError(f"a server named {name!r} is already configured")
            config.remove(replace)
        config.add(merged, replace=True)

    await asyncio.to_thread(write)
    mcp.start_in_background()


def tool_policies(mcp: McpService, server: str) -> list[ToolPolicyRow]:
    """Every tool of running server ``server`` (those turned off too), with its policy."""
    manager = mcp.manager
    conn = manager.connections.get(server) if manager is not None else None
    if conn is None:
        return []
    from app.tools.mcp.naming import suggested_policy

    return [
        ToolPolicyRow(
            t.name,
            (t.description or "").strip().split("\n")[0],
            suggested_policy(t),
            conn.config.tools.get(t.name),
        )
        for t in conn.tools
    ]


async def set_policy(
    mcp: McpService, server: str, policy: ToolPolicy | None, tool: str | None = None
) -> None:
    """Set what every tool of ``server`` (or its tool ``tool``) may do; None follows the
    default. Saved at once and applied to the running server without restarting it."""
    config = mcp.config
    await asyncio.to_thread(config.set_policy, server, policy, tool)
    updated = await asyncio.to_thread(config.get, server)
    manager = mcp.manager
    conn = manager.connections.get(server) if manager is not None else None
    if conn is not None:
        conn.config = updated
    mcp.changed()


async def read_servers_file(path: str | Path) -> ImportPlan:
    """Read another app's ``mcpServers`` file: what it offers and what each server claims
    (secrets not its own, tools run without asking), for the user to confirm."""
    return await asyncio.to_thread(read_import, path)


async def import_servers(mcp: McpService, plan: ImportPlan, *, trust: bool = False) -> ImportReport:
    """Add the servers of ``plan``, as ``parley mcp import`` does (those making claims only
    with ``trust``), and start them; returns what was added, held back and skipped."""
    report = await asyncio.to_thread(apply_import, mcp.config, plan, trust=trust)
    if report.added:
        mcp.start_in_background()
    return report


async def probe_server(mcp: McpService, server: ServerConfig, *, limit: float = 20.0) -> list[str]:
    """Start ``server`` on its own, list its tools and stop it; returns the tool names.

    Raises :class:`UserError` with one sentence saying why it cannot be used (a server that
    does not answer within ``limit`` seconds is given up); the attempt's log is kept in
    ``logs/mcp/tests``.
    """
    manager_module = await asyncio.to_thread(importlib.import_module, "app.tools.mcp.connection")
    conn = manager_module.McpConnection(
        server.model_copy(update={"disabled": False}),
        log_dir=mcp_log_dir(mcp.data_dir) / "tests",
        secret_resolver=mcp.secrets,
        start_timeout=limit,
    )
    try:
        await conn.ensure_started()
    except manager_module.McpServerError as exc:
        raise UserError(str(exc).split("\n")[0].strip()) from None
    finally:
        await conn.close()
    return [t.name for t in conn.tools]
