"""How a tool is listed in the composer's menu and on the MCP servers page, and why a tool
cannot work now (:class:`Unavailable`, with the :class:`ToolFix` that makes it work)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

__all__ = ["BUILTIN_GROUP", "ToolEntry", "ToolFix", "Unavailable", "first_line"]

BUILTIN_GROUP = "Built-in"
"""The group the built-in tools are listed under (MCP tools are grouped by server)."""


class ToolFix(Enum):
    """What the person does so that a tool can work; the value is the button's text."""

    SHARE_FOLDER = "Share a folder…"
    """Share a folder with Parley (the file tools)."""
    GO_ONLINE = "Go online…"
    """Turn offline mode off (the web tools)."""
    START_SERVER = "Start the server…"
    """Start (or turn on) the MCP server that offers the tool."""


@dataclass(frozen=True, slots=True)
class Unavailable:
    """Why a tool cannot work now (it is not offered to the model until it can)."""

    reason: str
    """A short sentence without a full stop, e.g. ``no folder is shared with Parley``."""
    fix: ToolFix
    """What makes it work."""


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
    unavailable: Unavailable | None = None
    """Why the tool cannot work now; ``None`` when it can."""


def first_line(text: str) -> str:
    """The first line of ``text``, stripped (a tool's description in one line)."""
    return text.strip().splitlines()[0].strip() if text.strip() else ""
