"""A delegate agent's work in the thread, folded into one card.

The messages a delegate wrote in its child run are marked with its name (``message.agent``)
and sit together in the thread, its task first. :func:`run_of` finds, for a row, the run it
belongs to: the card's title ("Researcher — 3 steps, 2 tool calls"), whether the row is the
card's first (which draws the card) and the key that folds it. A task that follows a
message asking a delegate (an ``ask_*`` call) is a delegate's own delegation, shown inside
its card; any other task starts a new card.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from dataclasses import dataclass

from app.core.state import Message, ToolCallBlock
from app.text.hidden_chars import mark_hidden
from app.ui.chat.links import Toggle, href_of
from app.ui.icons import glyph_html
from app.ui.theme import roles

__all__ = ["DelegatedRun", "card_html", "run_of"]

_ASK = "ask_"
_LONGEST_NAME = 80


@dataclass(frozen=True, slots=True)
class DelegatedRun:
    """The card a delegated row belongs to."""

    agent: str
    key: str
    """What folds and unfolds the card (``toggle:KEY``): the first message's id."""
    start: int
    """The card's first row."""
    first: bool
    """Whether this row is the card's first, which draws it."""
    steps: int
    tool_calls: int
    task: str

    @property
    def title(self) -> str:
        """ "Researcher — 3 steps, 2 tool calls"."""
        name = mark_hidden(self.agent)
        if len(name) > _LONGEST_NAME:
            name = name[: _LONGEST_NAME - 1] + "…"
        steps = f"{self.steps} step{'s' if self.steps != 1 else ''}"
        calls = f"{self.tool_calls} tool call{'s' if self.tool_calls != 1 else ''}"
        return f"{name} — {steps}, {calls}"


def _asks(message: Message) -> bool:
    return any(c.name.startswith(_ASK) for c in message.tool_calls())


def _starts(rows: Sequence[Message], i: int) -> bool:
    if rows[i].agent is None:
        return False
    if i == 0 or rows[i - 1].agent is None:
        return True
    return rows[i].role == "user" and not _asks(rows[i - 1])


def run_of(rows: Sequence[Message], row: int) -> DelegatedRun | None:
    """The delegated run ``row`` is part of, or ``None`` for the thread's own messages."""
    if not 0 <= row < len(rows) or rows[row].agent is None:
        return None
    start = row
    while not _starts(rows, start):
        start -= 1
    end = start + 1
    while end < len(rows) and rows[end].agent is not None and not _starts(rows, end):
        end += 1
    first = rows[start]
    mine = [m for m in rows[start:end] if m.agent == first.agent and m.role == "assistant"]
    calls = sum(isinstance(b, ToolCallBlock) for m in mine for b in m.content)
    agent = first.agent or ""
    task = first.text() if first.role == "user" else ""
    key = f"{first.message_id}:delegated"
    return DelegatedRun(agent, key, start, row == start, len(mine), calls, task)


def card_html(run: DelegatedRun, *, expanded: bool, dark: bool) -> str:
    """The card's head: its title as a fold link, and the task while folded."""
    bg = roles(dark).delegate_card
    arrow = glyph_html("arrow-down-s-line" if expanded else "arrow-right-s-line", roles(dark).muted)
    mark = glyph_html("team-line", roles(dark).accent)
    task = " ".join(mark_hidden(run.task).split())
    if len(task) > 160:
        task = task[:159] + "…"
    shown = (
        f'<br/><span style="color:{roles(dark).muted};">Task: {html.escape(task)}</span>'
        if task and not expanded
        else ""
    )
    return (
        f'<table width="100%" cellspacing="0" cellpadding="8" bgcolor="{bg}" '
        f'style="margin-top:2px; margin-bottom:4px;"><tr><td>'
        f'<a href="{html.escape(href_of(Toggle(run.key)))}" style="text-decoration:none;">{arrow} '
        f"{mark}&nbsp;<b>{html.escape(run.title)}</b></a>{shown}</td></tr></table>"
    )
