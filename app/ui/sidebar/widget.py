"""The thread sidebar: New, search, the thread list with badges, rename in place, an Undo
bar after a delete, and a context menu (rename, export, delete)."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QRect, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QContextMenuEvent, QFont, QKeyEvent, QPainter, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QMenu,
    QPushButton,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QVBoxLayout,
    QWidget,
)

from app.ui.painting import draw_focus_ring
from app.ui.sidebar.model import RowRole, SidebarRow, ThreadIdRole
from app.ui.sidebar.viewmodel import ThreadsViewModel
from app.ui.tasks import spawn
from app.ui.theme import is_dark, roles

__all__ = ["Sidebar"]

Index = QModelIndex | QPersistentModelIndex
ROW_HEIGHT = 56


class _RowDelegate(QStyledItemDelegate):
    """Title, a muted second line (matches highlighted in search) and a status badge."""

    def sizeHint(self, option: QStyleOptionViewItem, index: Index) -> QSize:
        return QSize(200, ROW_HEIGHT)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        row: SidebarRow = index.data(RowRole)
        rect: QRect = option.rect
        palette: QPalette = option.palette
        state = option.state
        painter.save()
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        box = rect.adjusted(6, 2, -6, -2)
        selected = bool(state & QStyle.StateFlag.State_Selected)
        if selected or state & QStyle.StateFlag.State_MouseOver:
            colour = palette.color(QPalette.ColorRole.Highlight)
            colour.setAlpha(60 if selected else 25)
            painter.setPen(Qt.PenStyle.NoPen)
            painter.setBrush(colour)
            painter.drawRoundedRect(box, 8, 8)
        if state & QStyle.StateFlag.State_HasFocus:
            draw_focus_ring(painter, palette, box, 8)
        text_rect = box.adjusted(10, 6, -30, -6)
        title_font = QFont(option.font)
        title_font.setWeight(QFont.Weight.DemiBold)
        painter.setFont(title_font)
        painter.setPen(palette.color(QPalette.ColorRole.Text))
        metrics = painter.fontMetrics()
        top = QRect(text_rect.x(), text_rect.y(), text_rect.width(), text_rect.height() // 2)
        painter.drawText(
            top,
            int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
            metrics.elidedText(row.title, Qt.TextElideMode.ElideRight, top.width()),
        )
        painter.setFont(option.font)
        bottom = QRect(
            text_rect.x(), top.bottom(), text_rect.width(), text_rect.height() - top.height()
        )
        self._draw_line(painter, bottom, row, palette)
        badge = {"running": "●", "waiting": "!", "cut_off": "⏸"}.get(row.status)
        if badge:
            colours = roles(is_dark(palette))
            tints = {
                "running": colours.accent,
                "waiting": colours.warning_mark,
                "cut_off": colours.muted,
            }
            painter.setFont(title_font)
            if row.status == "waiting":  # a filled disc: a decision is needed here
                size = 18
                disc = QRect(box.right() - 10 - size, box.center().y() - size // 2, size, size)
                painter.setRenderHint(QPainter.RenderHint.Antialiasing)
                painter.setPen(Qt.PenStyle.NoPen)
                painter.setBrush(QColor(tints[row.status]))
                painter.drawEllipse(disc)
                painter.setPen(QColor(colours.on_accent))
                painter.drawText(disc, int(Qt.AlignmentFlag.AlignCenter), badge)
            else:
                painter.setPen(QColor(tints[row.status]))
                painter.drawText(
                    box.adjusted(0, 0, -10, 0),
                    int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter),
                    badge,
                )
        painter.restore()

    def _draw_line(self, painter: QPainter, rect: QRect, row: SidebarRow, pal: QPalette) -> None:
        muted = pal.color(QPalette.ColorRole.PlaceholderText)
        metrics = painter.fontMetrics()
        said = " · ".join(
            part for part in ("Scheduled" if row.scheduled else "", row.agent) if part
        )
        if said and not row.snippet:  # scheduled and the thread's agent first, in the accent
            label = metrics.elidedText(said, Qt.TextElideMode.ElideRight, rect.width() // 2)
            painter.setPen(pal.color(QPalette.ColorRole.Link))
            painter.drawText(
                rect, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), label
            )
            used = metrics.horizontalAdvance(label + "  ·  ")
            painter.setPen(muted)
            painter.drawText(
                rect.adjusted(metrics.horizontalAdvance(label), 0, 0, 0),
                int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
                "  ·  ",
            )
            rect = rect.adjusted(used, 0, 0, 0)
        if not row.snippet:
            painter.setPen(muted)
            painter.drawText(
                rect,
                int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
                metrics.elidedText(
                    row.line or "No messages yet", Qt.TextElideMode.ElideRight, rect.width()
                ),
            )
            return
        # a search snippet: matches (between \x02 and \x03) drawn bold in the accent colour
        x = rect.x()
        bold = QFont(painter.font())
        bold.setBold(True)
        plain = QFont(painter.font())
        parts = row.line.replace("\x03", "\x02").split("\x02")
        for i, part in enumerate(parts):
            if not part:
                continue
            hit = i % 2 == 1
            painter.setFont(bold if hit else plain)
            painter.setPen(pal.color(QPalette.ColorRole.Link) if hit else muted)
            width = painter.fontMetrics().horizontalAdvance(part)
            room = rect.right() - x
            if room <= 8:
                break
            text = (
                part
                if width <= room
                else painter.fontMetrics().elidedText(part, Qt.TextElideMode.ElideRight, room)
            )
            painter.drawText(
                QRect(x, rect.y(), room, rect.height()),
                int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter),
                text,
            )
            x += min(width, room)


class _ThreadList(QListView):
    deleteKey = Signal()

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
        self.list.setItemDelegate(_RowDelegate(self.list))
        self.list.setUniformItemSizes(True)
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
