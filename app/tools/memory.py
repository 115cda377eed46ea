"""``remember``: an agent proposes a memory; it is kept only after the person says yes.

The tool asks for approval before every call (the terminal reads the question as "Parley will
remember: TEXT — Keep this memory? [y/N]"), so a call runs only once the person kept it; a
denied call keeps nothing and its result says so. The tools layer cannot reach the store: the
service passes in a keep function (see :data:`KeepMemory`), handed the run that asks, which
knows the thread and its agent.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from app.core.graph.context import RunContext
from app.core.tools import ApprovalPreview, Runtime, Tool, ToolError, tool

__all__ = ["REMEMBER_TOOL", "KeepMemory", "remember_tool", "remembered_text"]

REMEMBER_TOOL = "remember"
"""The tool's name, which a front end looks for to ask "Keep this memory?"."""

KeepMemory = Callable[[str, str, RunContext | None], Awaitable[dict[str, Any]]]
"""``keep(text, why, asker)``: keep the memory for the run ``asker``'s thread and agent;
returns what the tool answers (``kept`` true or false, and why not)."""


def remembered_text(args: Mapping[str, Any]) -> str:
    """The text a ``remember`` call proposes, one line, as its arguments hold it."""
    text = args.get("text")
    return " ".join(text.split()) if isinstance(text, str) else ""


async def _preview(args: Mapping[str, Any]) -> ApprovalPreview:
    """What the person is asked to keep."""
    why = args.get("why")
    reason = f"\nWhy: {why}" if isinstance(why, str) and why.strip() else ""
    return ApprovalPreview(text=f"Parley will remember: {remembered_text(args)}{reason}")


def remember_tool(keep: KeepMemory) -> Tool[..., Any]:
    """Build ``remember`` over ``keep``."""

    @tool(name=REMEMBER_TOOL, timeout=15, requires_approval=True, approval_preview=_preview)
    async def remember(text: str, runtime: Runtime, why: str = "") -> dict[str, Any]:
        """Propose a short note to remember across conversations (something lasting about the
        user or their work); the user decides whether it is kept.

        Args:
            text: The note, one short sentence.
            why: Why it is worth remembering.
        """
        if not text.strip():
            raise ToolError("the note is empty; give the sentence to remember")
        return await keep(text.strip(), why.strip(), runtime.context)

    return remember
