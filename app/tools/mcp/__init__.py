"""MCP servers as tool providers: their tools become Parley tools under the same rules.

Built on the official ``mcp`` SDK. Start with :func:`mcp_tools` (or :class:`McpManager`) and a
list of :class:`ServerConfig`; :mod:`app.services.mcp.config` reads them from ``mcp.json``.
"""

import importlib
from typing import TYPE_CHECKING, Any

from app.tools.mcp.config import ServerConfig, ToolPolicy, secret_refs_in, valid_server_name

if TYPE_CHECKING:
    from app.tools.mcp.connection import Backoff, McpConnection, McpServerError, ServerState
    from app.tools.mcp.content import blocks_of, prompt_blocks, resource_blocks
    from app.tools.mcp.manager import McpManager, mcp_tools
    from app.tools.mcp.naming import effective_policy, suggested_policy, tool_names
    from app.tools.mcp.tool import McpTool, McpToolError, permission_for

_LAZY = {
    **dict.fromkeys(["Backoff", "McpConnection", "McpServerError", "ServerState"], "connection"),
    **dict.fromkeys(["blocks_of", "prompt_blocks", "resource_blocks"], "content"),
    **dict.fromkeys(["McpManager", "mcp_tools"], "manager"),
    **dict.fromkeys(["effective_policy", "suggested_policy", "tool_names"], "naming"),
    **dict.fromkeys(["McpTool", "McpToolError", "permission_for"], "tool"),
}
"""What needs the ``mcp`` SDK, imported on first use: the SDK takes long to import and the
window starts before any server does (the configuration above is light)."""


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


__all__ = [
    "Backoff",
    "McpConnection",
    "McpManager",
    "McpServerError",
    "McpTool",
    "McpToolError",
    "ServerConfig",
    "ServerState",
    "ToolPolicy",
    "blocks_of",
    "effective_policy",
    "mcp_tools",
    "permission_for",
    "prompt_blocks",
    "resource_blocks",
    "secret_refs_in",
    "suggested_policy",
    "tool_names",
    "valid_server_name",
]
