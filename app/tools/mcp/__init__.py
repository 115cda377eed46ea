"""MCP servers as tool providers: their tools become Parley tools under the same rules.

Built on the official ``mcp`` SDK. Start with :func:`mcp_tools` (or :class:`McpManager`) and a
list of :class:`ServerConfig`; :mod:`app.services.mcp_config` reads them from ``mcp.json``.
"""

from app.tools.mcp.config import ServerConfig, ToolPolicy, secret_refs_in, valid_server_name
from app.tools.mcp.connection import Backoff, McpConnection, McpServerError, ServerState
from app.tools.mcp.content import blocks_of, prompt_blocks, resource_blocks
from app.tools.mcp.manager import McpManager, mcp_tools
from app.tools.mcp.naming import default_policy, effective_policy, tool_names
from app.tools.mcp.tool import McpTool, McpToolError, permission_for

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
    "default_policy",
    "effective_policy",
    "mcp_tools",
    "permission_for",
    "prompt_blocks",
    "resource_blocks",
    "secret_refs_in",
    "tool_names",
    "valid_server_name",
]
