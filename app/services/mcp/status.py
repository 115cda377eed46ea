"""How each configured MCP server is once it was started: whether it runs (or why not), every
tool it lists with what that tool may do, and its log — what ``parley mcp list`` prints,
from :meth:`McpService.check <app.services.mcp.service.McpService.check>`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from app.tools.mcp.config import ServerConfig

if TYPE_CHECKING:
    from app.tools.mcp.manager import McpManager

__all__ = ["McpStatus", "ServerStatus", "ToolStatus", "server_statuses"]


@dataclass(frozen=True, slots=True)
class ToolStatus:
    """One tool a running server lists."""

    name: str
    """The name the model is offered (``SERVER__TOOL``), or the server's own name for a tool
    that is off."""
    policy: str
    """``allowed``, ``approval`` or ``off``."""
    about: str
    """The first line of the tool's description (``""`` when it has none)."""
    offered: bool
    """Whether the model is offered the tool (it is not when its policy is ``off``)."""


@dataclass(frozen=True, slots=True)
class ServerStatus:
    """One configured server after a start."""

    name: str
    transport: str
    """``stdio`` for a command, ``http`` for an address."""
    reaches: str
    """How it is reached, with no secret in it: the command line or the address."""
    state: str
    """``disabled``, ``running``, or the state it stopped in (``failed``, ``crashed``, ...)."""
    reason: str | None
    """Why it is not running, when it was started and is not."""
    tools: tuple[ToolStatus, ...] = ()
    """The tools it lists, in its order (a running server's only)."""
    log: Path | None = None
    """Its log file (``None`` when it is disabled)."""


@dataclass(frozen=True, slots=True)
class McpStatus:
    """Every server of one ``mcp.json`` after a start."""

    config: Path
    """The ``mcp.json`` read."""
    servers: list[ServerStatus] = field(default_factory=list)
    """The servers that are configured correctly, in file order."""
    problems: dict[str, str] = field(default_factory=dict)
    """The entries that cannot be used, with the reason for each."""


def server_statuses(
    servers: Sequence[ServerConfig], manager: McpManager | None
) -> list[ServerStatus]:
    """How each of ``servers`` is in ``manager`` (``None``: none was started)."""
    connections = manager.connections if manager is not None else {}
    offered_tools = manager.tools() if manager is not None else []
    out = []
    for server in servers:
        conn = connections.get(server.name)
        if conn is None:
            out.append(
                ServerStatus(server.name, server.transport, server.describe(), "disabled", None)
            )
            continue
        tools: tuple[ToolStatus, ...] = ()
        if conn.state == "running":
            offered = {t.remote_name: t for t in offered_tools if t.connection is conn}
            listed = []
            for info in conn.tools:
                shown = offered.get(info.name)
                about = (info.description or "").strip().splitlines()[:1]
                listed.append(
                    ToolStatus(
                        shown.name if shown else info.name,
                        shown.policy if shown else "off",
                        about[0] if about else "",
                        shown is not None,
                    )
                )
            tools = tuple(listed)
        out.append(
            ServerStatus(
                server.name,
                server.transport,
                server.describe(),
                conn.state,
                conn.reason,
                tools,
                conn.log_path,
            )
        )
    return out
