"""How a memory reads in the window: its scope, where it came from, when it was made and last
used."""

from __future__ import annotations

import time
from collections.abc import Callable

from app.services.memory import Memory
from app.text.hidden_chars import mark_hidden

__all__ = ["scope_text", "source_text", "when_text"]


def when_text(at: float | None, never: str = "never") -> str:
    """A moment as a short local date and time (``never`` for ``None``)."""
    if at is None:
        return never
    return time.strftime("%d %b %Y %H:%M", time.localtime(at))


def scope_text(memory: Memory, agent_name: Callable[[str], str]) -> str:
    """Whose the memory is: "about me" (everyone's) or the agent's name."""
    return "about me" if memory.agent_id is None else mark_hidden(agent_name(memory.agent_id))


def source_text(memory: Memory, thread_title: str | None) -> str:
    """Where the memory came from: "added by you", or the thread it was kept in (its title,
    ``None`` when that thread is gone)."""
    if memory.thread_id is None:
        return "added by you"
    if thread_title is None:
        return "from a thread since deleted"
    return f"from the thread “{mark_hidden(thread_title) or 'New thread'}”"
