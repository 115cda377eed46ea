"""How a tool is listed in the composer's menu and on the MCP servers page."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["BUILTIN_GROUP", "ToolEntry", "first_line"]

BUILTIN_GROUP = "Built-in"
"""The group the built-in tools are listed under (MCP tools are grouped by server)."""


@dataclass(frozen=True, slots=True)
class ToolEntry:
    """One tool as the composer's menu lists it."""

    name: str
    """The name the model sees (``SERVER__TOOL`` for an MCP tool)."""
    label: str
    """The short name to show (an MCP tool's own name, without the server)."""
    description: str
    """The first line of what the tool does."""
    group: str
    """:data:`BUILTIN_GROUP` or the MCP server's name."""


def first_line(text: str) -> str:
    """The first line of ``text``, stripped (a tool's description in one line)."""
    return text.strip().splitlines()[0].strip() if text.strip() else ""
