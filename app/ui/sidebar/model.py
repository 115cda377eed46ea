"""The sidebar's rows: threads (title, last line, badge) or search hits (title, snippet)."""

from __future__ import annotations

import dataclasses
import re
import time
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, QPersistentModelIndex, Qt, Signal

from app.services.threads import SearchHit, ThreadSummary

__all__ = [
    "HeadingRole",
    "RowRole",
    "SidebarRow",
    "ThreadIdRole",
    "ThreadListModel",
    "day_heading",
]

ThreadIdRole = Qt.ItemDataRole.UserRole + 1
RowRole = Qt.ItemDataRole.UserRole + 2
HeadingRole = Qt.ItemDataRole.UserRole + 3
"""The date heading drawn above a row that starts a group ("Today", …), or ``None``."""

Index = QModelIndex | QPersistentModelIndex

SAID_OF_HEADING = {
    "Today": "Last active today",
    "Yesterday": "Last active yesterday",
    "Previous 7 days": "Last active in the previous 7 days",
    "Older": "Last active more than a week ago",
}
"""What a screen reader says of a thread's date group (the heading is drawn, not a row)."""

BADGES = {"running": "streaming", "waiting": "waiting for approval", "cut_off": "run cut off"}


@dataclass(frozen=True, slots=True)
class SidebarRow:
    """One row: a thread, or a search hit in a thread (``snippet`` marks matches with
    ``\\x02``/``\\x03``)."""

    thread_id: str
    title: str
    line: str
    status: str = "idle"
    snippet: bool = False
    agent: str = ""
    """The thread's agent when it is not Parley, and ``API`` when it was asked through the
    server (shown before the last line)."""
    branch: int | None = None
    """A search hit on a version the thread does not show now: its branch's number."""
    scheduled: bool = False
    """A scheduled run wrote into the thread (marked before the last line)."""
    active_at: float = 0.0
    """The thread's last activity (seconds since the epoch): which date group it is in."""


def day_heading(when: float, today: date | None = None) -> str:
    """The group a thread last active at ``when`` is listed under, in local time: Today,
    Yesterday, Previous 7 days or Older."""
    today = today or date.today()
    day = datetime.fromtimestamp(when).date()
    if day >= today:
        return "Today"
    if day == today - timedelta(days=1):
        return "Yesterday"
    if day >= today - timedelta(days=7):
        return "Previous 7 days"
    return "Older"


_MARKUP = re.compile(r"(\*\*|__|`+|^#+\s*|^>\s*)")


def row_of_summary(summary: ThreadSummary, agent: str = "", scheduled: bool = False) -> SidebarRow:
    """The row for a thread (its last line without Markdown marks), naming ``agent`` when
    it is not Parley, marked when a scheduled run wrote into it, and marked ``API`` when it
    was asked through the server."""
    t = summary.thread
    line = _MARKUP.sub("", summary.last_line)
    label = " · ".join(part for part in (agent, "API" if t.origin == "api" else "") if part)
    return SidebarRow(
        t.id,
        t.title or "New thread",
        line,
        summary.status,
        agent=label,
        scheduled=scheduled,
        active_at=t.updated_at,
    )


def row_of_hit(hit: SearchHit) -> SidebarRow:
    """The row for a search hit (one on a version not shown says its branch)."""
    line = " ".join(hit.snippet.split())
    if hit.branch is not None:
        line = f"On branch {hit.branch}: {line}"
    title = hit.thread_title or "New thread"
    return SidebarRow(hit.thread_id, title, line, snippet=True, branch=hit.branch)


class ThreadListModel(QAbstractListModel):
    """Rows of :class:`SidebarRow`; editable titles (F2). Threads (not search hits) are
    grouped by date: the first row of each group carries its heading (:data:`HeadingRole`)."""

    renameRequested = Signal(str, str)
    """The user typed a new title for thread ``id``."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.rows: list[SidebarRow] = []
        self.hidden: set[str] = set()
        """Threads deleted but still undoable: not shown."""
        self._all: list[SidebarRow] = []
        self.headings: dict[int, str] = {}
        """Row number -> the date heading drawn above it (threads only, not search hits)."""

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self.rows):
            return None
        row = self.rows[index.row()]
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole):
            return row.title
        if role == Qt.ItemDataRole.AccessibleTextRole:
            badge = BADGES.get(row.status)
            line = row.line.replace("\x02", "").replace("\x03", "")
            agent = f", with {row.agent}" if row.agent else ""
            agent = f", scheduled{agent}" if row.scheduled else agent
            return f"{row.title}{agent}{f', {badge}' if badge else ''}. {line}"
        if role == Qt.ItemDataRole.AccessibleDescriptionRole and not row.snippet:
            return SAID_OF_HEADING.get(self._group_of(index.row()))
        if role == Qt.ItemDataRole.ToolTipRole:
            badge = BADGES.get(row.status)
            return f"{row.title} ({badge})" if badge else row.title
        if role == ThreadIdRole:
            return row.thread_id
        if role == RowRole:
            return row
        if role == HeadingRole:
            return self.headings.get(index.row())
        return None

    def _group_of(self, row: int) -> str:
        """The date heading ``row`` is listed under (the nearest one at or above it)."""
        return next((self.headings[r] for r in range(row, -1, -1) if r in self.headings), "")

    def flags(self, index: Index) -> Qt.ItemFlag:
        base = super().flags(index)
        if index.isValid() and not self.rows[index.row()].snippet:
            base |= Qt.ItemFlag.ItemIsEditable
        return base

    def setData(self, index: Index, value: Any, role: int = Qt.ItemDataRole.EditRole) -> bool:
        if role != Qt.ItemDataRole.EditRole or not index.isValid():
            return False
        title = " ".join(str(value).split())
        row = self.rows[index.row()]
        if not title or title == row.title:
            return False
        self.rows[index.row()] = dataclasses.replace(row, title=title)
        self.dataChanged.emit(index, index)
        self.renameRequested.emit(row.thread_id, title)
        return True

    def set_rows(self, rows: list[SidebarRow]) -> None:
        """Show ``rows`` (minus hidden threads), keeping the model small and current."""
        self._all = rows
        self.beginResetModel()
        self.rows = [r for r in rows if r.thread_id not in self.hidden]
        self.headings = _headings(self.rows)
        self.endResetModel()

    def set_hidden(self, hidden: set[str]) -> None:
        """Hide (or show again) threads whose deletion can still be undone."""
        self.hidden = set(hidden)
        self.set_rows(self._all)

    def row_of(self, thread_id: str) -> int | None:
        """The row showing ``thread_id``, if any."""
        for i, r in enumerate(self.rows):
            if r.thread_id == thread_id:
                return i
        return None


def _headings(rows: list[SidebarRow]) -> dict[int, str]:
    """Where each date group starts in ``rows`` (most recent first); none for search hits."""
    today = datetime.fromtimestamp(time.time()).date()
    out: dict[int, str] = {}
    last = ""
    for i, row in enumerate(rows):
        if row.snippet:
            return {}
        heading = day_heading(row.active_at, today)
        if heading != last:
            out[i] = heading
            last = heading
    return out
