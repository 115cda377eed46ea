"""The thread sidebar: New, search, the thread list (grouped by date, with status marks),
rename in place, an Undo bar after a delete, and a context menu (rename, export, delete)."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, Qt, QTimer, Signal
from PySide6.QtGui import QContextMenuEvent, QKeyEvent, QMouseEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QMenu,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.ui.sidebar.delegate import RowDelegate, heading_height
from app.ui.sidebar.model import RowRole, SidebarRow, ThreadIdRole
from app.ui.sidebar.viewmodel import ThreadsViewModel
from app.ui.tasks import spawn

__all__ = ["Sidebar"]


class _ThreadList(QListView):
    deleteKey = Signal()

    def mousePressEvent(self, event: QMouseEvent) -> None:
        index = self.indexAt(event.position().toPoint())
        top = self.visualRect(index).top() + heading_height(index) if index.isValid() else 0
        if index.isValid() and event.position().y() < top:
            event.accept()  # a date heading: nothing to choose there
            return
        super().mousePressEvent(event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Delete:
            self.deleteKey.emit()
            return
        super().keyPressEvent(event)


class Sidebar(QFrame):
    """The sidebar (see the module docstring)."""

    threadActivated = Signal(str)
    branchActivated = Signal(str, int)
    """A search hit on branch ``number`` of thread ``id`` (not shown now) was chosen."""
    newThreadRequested = Signal()
    exportRequested = Signal(str, str)
    """Export thread ``id`` as ``markdown`` or ``json``."""

    def __init__(self, vm: ThreadsViewModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.vm = vm
        self.setObjectName("sidebar")
        self.setMinimumWidth(200)
        self._build_new_button()
        self._build_search()
        self._build_list()
        self._build_undo_bar()
        self._lay_out()

    def _build_new_button(self) -> None:
        self.new_button = QPushButton("+  New thread", self)
        self.new_button.setObjectName("newThreadButton")
        self.new_button.setAccessibleName("New thread")
        self.new_button.setToolTip("New thread (Ctrl+N)")
        self.new_button.clicked.connect(self.newThreadRequested)

    def _build_search(self) -> None:
        self.search = QLineEdit(self)
        self.search.setObjectName("threadSearch")
        self.search.setAccessibleName("Search threads")
        self.search.setPlaceholderText("Search messages  (Ctrl+F)")
        self.search.setClearButtonEnabled(True)
        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(150)
        self._search_timer.timeout.connect(lambda: spawn(self.vm.search(self.search.text())))
        self.search.textChanged.connect(lambda _t: self._search_timer.start())
        self.search.returnPressed.connect(self._open_first)

    def _build_list(self) -> None:
        self.list = _ThreadList(self)
        self.list.setObjectName("threadList")
        self.list.setAccessibleName("Threads")
        self.list.setModel(self.vm.model)
        self.list.setItemDelegate(RowDelegate(self.list))
        self.list.setMouseTracking(True)
        self.list.setFrameShape(QFrame.Shape.NoFrame)
        self.list.setEditTriggers(
            QAbstractItemView.EditTrigger.EditKeyPressed
            | QAbstractItemView.EditTrigger.SelectedClicked
        )
        self.list.activated.connect(self._activated)
        self.list.clicked.connect(self._activated)
        self.list.deleteKey.connect(self.delete_current)

    def _build_undo_bar(self) -> None:
        self.undo_bar = QFrame(self)
        self.undo_bar.setObjectName("undoBar")
        self.undo_label = QLabel("", self.undo_bar)
        self.undo_label.setWordWrap(True)
        self.undo_button = QPushButton("Undo", self.undo_bar)
        self.undo_button.setObjectName("undoDeleteButton")
        self.undo_button.setAccessibleName("Undo delete")
        self.undo_button.clicked.connect(self._undo)
        bar = QHBoxLayout(self.undo_bar)
        bar.setContentsMargins(10, 6, 10, 6)
        bar.addWidget(self.undo_label, 1)
        bar.addWidget(self.undo_button)
        self.undo_bar.hide()
        self.vm.deletePending.connect(self._show_undo)
        self.vm.deleteSettled.connect(self.undo_bar.hide)

    def _lay_out(self) -> None:
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 10, 8, 8)
        layout.setSpacing(8)
        layout.addWidget(self.new_button)
        layout.addWidget(self.search)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.undo_bar)

    def place_agents(self, agents: QWidget) -> None:
        """Show ``agents`` (the agents block) above the search and the threads."""
        layout = self.layout()
        assert isinstance(layout, QVBoxLayout)
        layout.insertWidget(1, agents)

    def select(self, thread_id: str) -> None:
        """Mark ``thread_id`` as the open thread."""
        row = self.vm.model.row_of(thread_id)
        if row is not None:
            self.list.setCurrentIndex(self.vm.model.index(row))

    def current_thread(self) -> tuple[str, str] | None:
        """The focused thread's id and title."""
        index = self.list.currentIndex()
        if not index.isValid():
            return None
        row: SidebarRow = index.data(RowRole)
        return row.thread_id, row.title

    def rename_current(self) -> None:
        """Start renaming the focused thread in place (F2)."""
        index = self.list.currentIndex()
        if index.isValid():
            self.list.edit(index)

    def delete_current(self) -> None:
        """Delete the focused thread (with Undo)."""
        current = self.current_thread()
        if current is not None:
            spawn(self.vm.delete(*current))

    def _activated(self, index: QModelIndex) -> None:
        thread_id = index.data(ThreadIdRole)
        row = index.data(RowRole)
        if thread_id and isinstance(row, SidebarRow) and row.branch is not None:
            self.branchActivated.emit(thread_id, row.branch)
        elif thread_id:
            self.threadActivated.emit(thread_id)

    def _open_first(self) -> None:
        if self.vm.model.rowCount():
            index = self.vm.model.index(0)
            self.list.setCurrentIndex(index)
            self._activated(index)

    def _show_undo(self, _thread_id: str, title: str) -> None:
        self.undo_label.setText(f"Deleted “{title}”.")
        self.undo_bar.show()

    def _undo(self) -> None:
        thread_id = self.vm.undo_delete()
        if thread_id:
            self.select(thread_id)

    def contextMenuEvent(self, event: QContextMenuEvent) -> None:
        pos = self.list.viewport().mapFrom(self, event.pos())
        index = self.list.indexAt(pos)
        if index.isValid():
            self.list.setCurrentIndex(index)
        current = self.current_thread()
        if current is None:
            return
        thread_id, _title = current
        menu = QMenu(self)
        menu.addAction("Rename", self.rename_current)
        menu.addAction(
            "Export as Markdown…", lambda: self.exportRequested.emit(thread_id, "markdown")
        )
        menu.addAction("Export as JSON…", lambda: self.exportRequested.emit(thread_id, "json"))
        menu.addSeparator()
        menu.addAction("Delete", self.delete_current)
        menu.popup(event.globalPos())
