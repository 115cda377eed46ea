"""``MessageListModel``: the open thread's loaded messages as rows, indexed by id.

Only the loaded pages are rows (newest page first, older ones prepended on demand), so a
thread of any length opens at once. Upserting a streamed message touches one row.
"""

from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, QPersistentModelIndex, Qt

from app.core.state import Message, ToolCallBlock, ToolResultBlock
from app.text.hidden_chars import mark_hidden
from app.ui.attachments.describe import describe
from app.ui.chat.delegated import run_of

__all__ = ["BranchRole", "DelegationRole", "MessageListModel", "MessageRole", "RevisionRole"]

MessageRole = Qt.ItemDataRole.UserRole + 1
"""The row's :class:`Message`."""
RevisionRole = Qt.ItemDataRole.UserRole + 2
"""A number that grows each time the row's message changes (for layout caches)."""
DelegationRole = Qt.ItemDataRole.UserRole + 3
"""The :class:`~app.ui.chat.delegated.DelegatedRun` the row is part of, or ``None``."""
BranchRole = Qt.ItemDataRole.UserRole + 4
"""``(shown, count)`` when the row's message is version ``shown`` of ``count`` (from 1), or
``None`` when it has no other version."""

Index = QModelIndex | QPersistentModelIndex


class MessageListModel(QAbstractListModel):
    """Rows of messages; see the module docstring."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._rows: list[Message] = []
        self._revisions: list[int] = []
        self._index: dict[str, int] = {}
        self._counter = 0
        self.results: dict[str, ToolResultBlock] = {}
        """Tool results by call id, so a call's card can show how it ended."""
        self._callers: dict[str, str] = {}
        self.author = "Parley"
        """Whose replies the rows are, as their accessible text names them: the thread's
        agent."""
        self._branches: dict[str, tuple[int, int]] = {}

    # Qt API --------------------------------------------------------------------------

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        message = self._rows[index.row()]
        if role == MessageRole:
            return message
        if role == RevisionRole:
            return self._revisions[index.row()]
        if role == DelegationRole:
            return run_of(self._rows, index.row())
        if role == BranchRole:
            return self._branches.get(str(message.message_id))
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.AccessibleTextRole):
            run = run_of(self._rows, index.row()) if message.agent else None
            if run is not None and run.first:
                return f"{run.title}. Task: {mark_hidden(run.task)}"
            who = {"user": "You", "assistant": self.author, "tool": "Tool"}.get(message.role, "")
            if message.agent and message.role == "assistant":
                who = message.agent
            described = [d for d in map(describe, message.content) if d]
            described += [self._call_said(call) for call in message.tool_calls()]
            version = self._branches.get(str(message.message_id))
            if version is not None:
                described.append(f"(version {version[0]} of {version[1]})")
            return " ".join([f"{who}: {message.text()}", *described])
        return None

    def _call_said(self, call: ToolCallBlock) -> str:
        """A tool call's card as its row's accessible text says it: what ran, how it ended."""
        result = self.results.get(call.id)
        if result is None:
            return f"(called {call.name}: waiting)"
        status = "done" if result.status == "completed" else "failed"
        out = result.output
        output = " ".join((out if isinstance(out, str) else json.dumps(out)).split())
        return f"(called {call.name}: {status}, {mark_hidden(output[:120])})"

    # Changes -------------------------------------------------------------------------

    def _next_revision(self) -> int:
        self._counter += 1
        return self._counter

    def _reindex(self, start: int = 0) -> None:
        for i in range(start, len(self._rows)):
            self._index[str(self._rows[i].message_id)] = i

    def _note_results(self, messages: list[Message]) -> list[str]:
        """Remember calls and results; return the ids of messages whose call got a result."""
        callers = []
        for m in messages:
            for block in m.content:
                if isinstance(block, ToolCallBlock):
                    self._callers[block.id] = str(m.message_id)
                elif isinstance(block, ToolResultBlock):
                    self.results[block.call_id] = block
                    if block.call_id in self._callers:
                        callers.append(self._callers[block.call_id])
        return callers

    def reset(self, messages: list[Message]) -> None:
        """Show exactly ``messages``."""
        self.beginResetModel()
        self._rows = list(messages)
        self._revisions = [self._next_revision() for _ in self._rows]
        self._index = {}
        self.results = {}
        self._callers = {}
        self._reindex()
        self._note_results(self._rows)
        self.endResetModel()

    def prepend(self, messages: list[Message]) -> None:
        """Add an older page above the loaded rows (skipping ids already shown)."""
        fresh = [m for m in messages if str(m.message_id) not in self._index]
        if not fresh:
            return
        self.beginInsertRows(QModelIndex(), 0, len(fresh) - 1)
        self._rows[0:0] = fresh
        self._revisions[0:0] = [self._next_revision() for _ in fresh]
        self._reindex()
        self._note_results(fresh)
        self.endInsertRows()

    def upsert(self, message: Message) -> int:
        """Replace the row with ``message``'s id, or append it; return its row."""
        key = str(message.message_id)
        for caller in self._note_results([message]):
            crow = self._index.get(caller)
            if crow is not None:
                self._revisions[crow] = self._next_revision()
                self.dataChanged.emit(self.index(crow), self.index(crow))
        row = self._index.get(key)
        if row is None:
            row = len(self._rows)
            self.beginInsertRows(QModelIndex(), row, row)
            self._rows.append(message)
            self._revisions.append(self._next_revision())
            self._index[key] = row
            self.endInsertRows()
            self._card_changed(message, row)
            return row
        self._rows[row] = message
        self._revisions[row] = self._next_revision()
        idx = self.index(row)
        self.dataChanged.emit(idx, idx, [MessageRole, RevisionRole])
        self._card_changed(message, row)
        return row

    def _card_changed(self, message: Message, row: int) -> None:
        """A delegate's new step changes its card's title, drawn by the card's first row."""
        if message.agent is None:
            return
        run = run_of(self._rows, row)
        if run is not None and run.start != row:
            self._revisions[run.start] = self._next_revision()
            first = self.index(run.start)
            self.dataChanged.emit(first, first, [RevisionRole])

    def remove(self, message_id: str) -> None:
        """Remove the row with this id, if shown."""
        row = self._index.get(str(message_id))
        if row is None:
            return
        self.beginRemoveRows(QModelIndex(), row, row)
        del self._rows[row]
        del self._revisions[row]
        del self._index[str(message_id)]
        self._reindex(row)
        self.endRemoveRows()

    def set_branches(self, versions: dict[str, tuple[int, int]]) -> None:
        """Which messages are one version of several: message id -> ``(shown, count)``."""
        old, self._branches = self._branches, dict(versions)
        for key in old.keys() | versions.keys():
            row = self._index.get(key)
            if row is not None and old.get(key) != versions.get(key):
                idx = self.index(row)
                self.dataChanged.emit(idx, idx, [BranchRole])

    def merged(self, row: int) -> bool:
        """Whether the row holds only results of calls drawn in rows above: each call's card
        shows its result, so the row itself is not drawn."""
        message = self.message_at(row)
        if message is None or message.role != "tool" or not message.content:
            return False
        return all(
            isinstance(b, ToolResultBlock) and self._callers.get(b.call_id) in self._index
            for b in message.content
        )

    def continues(self, row: int) -> bool:
        """Whether the row goes on with the reply above it (by the same agent, with only
        merged tool results between): one turn reads as one document, under one header."""
        message = self.message_at(row)
        if message is None or message.role != "assistant":
            return False
        row -= 1
        while row >= 0 and self.merged(row):
            row -= 1
        above = self.message_at(row)
        return above is not None and above.role == "assistant" and above.agent == message.agent

    def branch_at(self, row: int) -> tuple[int, int] | None:
        """``(shown, count)`` when the message in ``row`` has other versions, else ``None``."""
        message = self.message_at(row)
        return None if message is None else self._branches.get(str(message.message_id))

    # Reading -------------------------------------------------------------------------

    def message_at(self, row: int) -> Message | None:
        """The message in ``row``."""
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def revision_at(self, row: int) -> int | None:
        """The revision of the message in ``row`` (a new number whenever it changes)."""
        return self._revisions[row] if 0 <= row < len(self._revisions) else None

    def row_of(self, message_id: str) -> int | None:
        """The row showing ``message_id``."""
        return self._index.get(str(message_id))

    def messages(self) -> list[Message]:
        """The loaded messages, oldest first."""
        return list(self._rows)

    def last(self, role: str, *, with_text: bool = False) -> Message | None:
        """The newest loaded message of ``role`` (that has text, when ``with_text``), of the
        person or the thread's own agent (not a delegate's)."""
        return next(
            (
                m
                for m in reversed(self._rows)
                if m.role == role and m.agent is None and (m.text() or not with_text)
            ),
            None,
        )

    def total_tokens(self) -> int:
        """The tokens the loaded messages' model calls used, all told."""
        return sum(m.usages.total_tokens for m in self._rows if m.usages)
