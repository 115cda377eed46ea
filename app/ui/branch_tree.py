"""Thread > Branches…: the versions of a thread's messages as a tree (object name
``branchTree``), each by its first line with its length and date, nested under the version
that holds it. Open shows one where it was left; Rename… names one; Export… writes one as
Markdown; Delete takes one (and those inside it) out of the tree, with Undo while the dialog
is open."""

from __future__ import annotations

import datetime as dt
from collections.abc import Awaitable, Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.core.errors import ParleyError
from app.services.threads import Branch, ThreadService
from app.text.hidden_chars import mark_hidden
from app.ui.dialogs import ask, text_dialog
from app.ui.tasks import spawn

__all__ = ["BranchTreeDialog"]

NUMBER = Qt.ItemDataRole.UserRole + 1
"""An item's branch number (as :meth:`ThreadService.branches` numbers them)."""


class BranchTreeDialog(QDialog):
    """The thread's branches; see the module docstring."""

    opened = Signal(int)
    """Branch ``number`` is shown now (the thread was saved with it)."""
    changed = Signal()
    """Branches were deleted or put back."""
    exportRequested = Signal(int)
    """Branch ``number`` is to be exported (as Markdown)."""

    def __init__(self, parent: QWidget | None, threads: ThreadService, thread_id: str) -> None:
        super().__init__(parent)
        self.setObjectName("branchTree")
        self.setWindowTitle("Branches")
        self.resize(620, 380)
        self._threads = threads
        self.thread_id = thread_id
        self.branches: list[Branch] = []
        self.tree = QTreeWidget(self)
        self.tree.setObjectName("branchTreeView")
        self.tree.setAccessibleName("Branches of the thread")
        self.tree.setHeaderLabels(["Version", "Messages", "Made"])
        self.tree.header().setStretchLastSection(False)
        self.tree.header().setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in (1, 2):  # the length and date as wide as they are, the line the rest
            self.tree.header().setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.tree.setRootIsDecorated(True)
        self.tree.itemActivated.connect(lambda _item, _column: self.open_current())
        self.note = QLabel(self)
        self.note.setObjectName("branchTreeNote")
        self.note.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        self.open_button = self._button(buttons, "&Open", "openBranch", self.open_current)
        self.rename_button = self._button(
            buttons, "&Rename…", "renameBranch", lambda: spawn(self.rename_current())
        )
        intro = QLabel(
            "Each edited question and each answer given again is a version. The one shown "
            "now is in bold; Open shows another where it was left.",
            self,
        )
        intro.setWordWrap(True)
        self.delete_button = self._button(
            buttons, "&Delete", "deleteBranch", lambda: spawn(self.delete_current())
        )
        self.export_button = self._button(buttons, "&Export…", "exportBranch", self.export_current)
        self.undo_button = QPushButton("&Undo", self)
        self.undo_button.setObjectName("undoDeleteBranch")
        self.undo_button.setAccessibleName("Undo delete")
        self.undo_button.clicked.connect(lambda: spawn(self.undo_delete()))
        self.undo_button.hide()
        self._undo: Callable[[], Awaitable[None]] | None = None
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.tree, 1)
        layout.addWidget(self.note)
        layout.addWidget(self.undo_button, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(buttons)

    def _button(self, box: QDialogButtonBox, text: str, name: str, slot: object) -> QPushButton:
        button = box.addButton(text, QDialogButtonBox.ButtonRole.ActionRole)
        assert button is not None
        button.setObjectName(name)
        button.clicked.connect(slot)
        return button

    async def load(self) -> int:
        """Read the thread's branches into the tree; how many there are."""
        self.branches = await self._threads.branches(self.thread_id)
        self.tree.clear()
        holders: list[QTreeWidgetItem] = []  # the version holding each depth's items
        for branch in self.branches:
            del holders[branch.depth :]
            parent = holders[-1] if holders else None
            item = QTreeWidgetItem([_label(branch), str(branch.length), _date(branch)])
            item.setData(0, NUMBER, branch.number)
            item.setToolTip(0, f"Message {branch.at}, version {branch.index} of {branch.count}")
            if branch.shown:
                font = item.font(0)
                font.setBold(True)
                for column in range(3):
                    item.setFont(column, font)
            if parent is None:
                self.tree.addTopLevelItem(item)
            else:
                parent.addChild(item)
            holders.append(item)
        self.tree.expandAll()
        shown = [b.number for b in self.branches if b.shown]
        self.select(shown[-1] if shown else 1)
        return len(self.branches)

    def item_of(self, number: int) -> QTreeWidgetItem | None:
        """The tree's item for branch ``number``."""
        found = [
            item
            for item in self.tree.findItems(
                "", Qt.MatchFlag.MatchContains | Qt.MatchFlag.MatchRecursive
            )
            if item.data(0, NUMBER) == number
        ]
        return found[0] if found else None

    def select(self, number: int) -> None:
        """Make branch ``number`` the current item."""
        item = self.item_of(number)
        if item is not None:
            self.tree.setCurrentItem(item)

    def _current(self) -> int | None:
        item = self.tree.currentItem()
        return None if item is None else int(item.data(0, NUMBER))

    def open_current(self) -> None:
        """Show the chosen branch where it was left, and close."""
        number = self._current()
        if number is not None:
            spawn(self._open(number))

    async def _open(self, number: int) -> None:
        try:
            await self._threads.open_branch(self.thread_id, number)
        except ParleyError as exc:
            self.note.setText(str(exc))
            return
        self.opened.emit(number)
        self.accept()

    async def rename_current(self) -> None:
        """Ask for the chosen branch's name and keep it."""
        number = self._current()
        if number is None:
            return
        dialog, edit = text_dialog(self, "Name the branch", "A name for this branch:")
        edit.setText(self.branches[number - 1].name)
        edit.selectAll()
        chosen = await ask(dialog)
        name = edit.text()
        dialog.deleteLater()
        if not chosen:
            return
        try:
            await self._threads.rename_branch(self.thread_id, number, name)
        except ParleyError as exc:
            self.note.setText(str(exc))
            return
        await self.load()
        self.select(number)

    def export_current(self) -> None:
        """Ask to export the chosen branch."""
        number = self._current()
        if number is not None:
            self.exportRequested.emit(number)

    async def delete_current(self) -> None:
        """Take the chosen branch (and those inside it) out of the tree, offering Undo."""
        number = self._current()
        if number is None:
            return
        try:
            self._undo = await self._threads.delete_branch(self.thread_id, number)
        except ParleyError as exc:
            self.note.setText(str(exc))
            return
        line = self.branches[number - 1].line
        self.note.setText(f"The branch “{mark_hidden(line)}” was deleted.")
        self.undo_button.show()
        self.changed.emit()
        await self.load()

    async def undo_delete(self) -> None:
        """Put back the branches deleted last."""
        undo, self._undo = self._undo, None
        self.undo_button.hide()
        if undo is None:
            return
        await undo()
        self.note.setText("The branch is back.")
        self.changed.emit()
        await self.load()


def _label(branch: Branch) -> str:
    line = mark_hidden(branch.line) or "(no text)"
    return (
        f"{branch.number}. {mark_hidden(branch.name)}: {line}"
        if branch.name
        else (f"{branch.number}. {line}")
    )


def _date(branch: Branch) -> str:
    return dt.datetime.fromtimestamp(branch.created_at).strftime("%Y-%m-%d %H:%M")
