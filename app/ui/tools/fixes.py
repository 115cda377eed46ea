"""Where each fix of a tool that cannot work is made: the settings page a button opens."""

from __future__ import annotations

from app.services.workspace_tools import ToolFix, Unavailable
from app.ui.settings.page import PageId

__all__ = ["FIX_PAGES", "fix_tooltip", "greyed_text"]

FIX_PAGES: dict[ToolFix, PageId] = {
    ToolFix.SHARE_FOLDER: PageId.TOOLS,  # where folders are shared with Parley
    ToolFix.GO_ONLINE: PageId.NETWORK,  # the offline switch
    ToolFix.START_SERVER: PageId.MCP,  # the MCP servers, turned on and restarted
}
"""The settings page that makes each fix."""


def greyed_text(name: str, why: Unavailable) -> str:
    """A tool's line while it cannot work: its name and why."""
    return f"{name} — cannot work: {why.reason}"


def fix_tooltip(name: str, why: Unavailable) -> str:
    """The tooltip of a tool that cannot work: why, that the model is not offered it, and the
    fix."""
    return (
        f"{name} cannot work now: {why.reason}. The model is not offered it until it can; "
        f"{why.fix.value.rstrip('…')} to fix it."
    )
