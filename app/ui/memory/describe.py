"""How a memory reads in the window: its scope, where it came from, when it was made and last
used."""

from __future__ import annotations

import time
from collections.abc import Callable

from app.services.memory import Memory
from app.text.hidden_chars import mark_hidden

__all__ = ["scope_text", "source_text", "when_text"]


def when_text(at: float | None, never: str = "never", *, day: bool = False) -> str:
    """A moment as a short local date and time, or (``day``) the date alone (``never`` for
    ``None``)."""
    if at is None:
        return never
    moment = time.localtime(at)
    if day:  # this year's without its year
        this_year = moment.tm_year == time.localtime().tm_year
        return time.strftime("%d %b" if this_year else "%d %b %Y", moment)
    return time.strftime("%d %b %Y %H:%M", moment)


def scope_text(memory: Memory, agent_name: Callable[[str], str]) -> str:
    """Whose the memory is: "about me" (everyone's) or the agent's name."""
    return "about me" if memory.agent_id is None else mark_hidden(agent_name(memory.agent_id))


def source_text(memory: Memory, thread_title: str | None, *, short: bool = False) -> str:
    """Where the memory came from: "added by you", or the thread it was kept in (its title,
    ``None`` when that thread is gone); ``short`` for a table's column."""
    if memory.thread_id is None:
        return "added by you"
    if thread_title is None:
        return "a deleted thread" if short else "from a thread since deleted"
    title = f"“{mark_hidden(thread_title) or 'New thread'}”"
    return f"thread {title}" if short else f"from the thread {title}"
