"""Tool names a model provider accepts, and the policy a server's tool gets by default.

Every tool asks first until the user chooses otherwise. What a tool's annotations say of it
(``readOnlyHint``) is the server's claim, not a fact: it is shown as the suggested policy and
never applied on its own, so a tool that calls itself read-only but writes still asks.

Providers accept function names of at most 64 characters from ``[A-Za-z0-9_-]``. An MCP tool
is offered as ``SERVER__TOOL``; a name that would break those rules has the other characters
replaced by ``_`` and, when it is too long or collides, a short hash of the original added, so
the same tool always gets the same name.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping

import mcp.types as mcp_types

from app.tools.mcp.config import DEFAULT_POLICY, ToolPolicy

__all__ = [
    "DEFAULT_POLICY",
    "MAX_TOOL_NAME",
    "SEPARATOR",
    "effective_policy",
    "suggested_policy",
    "tool_names",
]

MAX_TOOL_NAME = 64
"""The longest function name every supported provider accepts."""

SEPARATOR = "__"
"""Between the server's name and the tool's name."""

_BAD = re.compile(r"[^A-Za-z0-9_-]")


def _short_hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:8]


def _name(server: str, tool: str) -> str:
    raw = f"{server}{SEPARATOR}{tool}"
    clean = _BAD.sub("_", raw)
    if len(clean) <= MAX_TOOL_NAME:
        return clean
    suffix = "_" + _short_hash(raw)
    return clean[: MAX_TOOL_NAME - len(suffix)] + suffix


def tool_names(server: str, tools: Iterable[str], taken: set[str] | None = None) -> dict[str, str]:
    """Map each of a server's tool names to the name the model is shown.

    The names differ from each other and from those in ``taken`` (the other servers' names),
    which is updated.
    """
    taken = set() if taken is None else taken
    result: dict[str, str] = {}
    for tool in tools:
        name = _name(server, tool)
        if name in taken:
            suffix = "_" + _short_hash(f"{server}/{tool}")
            name = name[: MAX_TOOL_NAME - len(suffix)] + suffix
        taken.add(name)
        result[tool] = name
    return result


def suggested_policy(tool: mcp_types.Tool) -> ToolPolicy:
    """What the tool's annotations suggest: ``allowed`` for one that says it is read-only,
    else ``approval``. Shown to the user; never applied without their choice."""
    hints = tool.annotations
    if hints is not None and hints.read_only_hint is True:
        return "allowed"
    return "approval"


def effective_policy(
    tool: mcp_types.Tool, server_policy: ToolPolicy | None, per_tool: Mapping[str, ToolPolicy]
) -> ToolPolicy:
    """The user's choice for this tool, else for its server, else :data:`DEFAULT_POLICY`
    (whatever the tool's annotations claim)."""
    return per_tool.get(tool.name) or server_policy or DEFAULT_POLICY
