"""``TickList``: the agent editor's lists of ticks (tools, delegates, knowledge folders), where a
click on a row's name ticks or unticks it as a click on its box does."""

from __future__ import annotations

from PySide6.QtCore import QPersistentModelIndex, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QListWidget, QWidget

__all__ = ["TickList"]


class TickList(QListWidget):
    """A :class:`QListWidget` of checkable rows: a left click on a row (its name as much as its
    box) flips its tick; Space still does, and a click on the box is left to the box."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._pressed: tuple[QPersistentModelIndex, Qt.CheckState] | None = None

    def mousePressEvent(self, event: QMouseEvent) -> None:
        self._press(event)
        super().mousePressEvent(event)

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        self._press(event)  # a double click flips it twice, as on the box
        super().mouseDoubleClickEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        pressed, self._pressed = self._pressed, None
        super().mouseReleaseEvent(event)  # a click on the box has ticked it here
        if pressed is None or event.button() != Qt.MouseButton.LeftButton:
            return
        index, before = pressed
        if not index.isValid() or self.indexAt(event.position().toPoint()) != index:
            return  # released elsewhere: a drag, not a click
        item = self.item(index.row())
        if item is not None and item.checkState() == before:
            checked = before == Qt.CheckState.Checked
            item.setCheckState(Qt.CheckState.Unchecked if checked else Qt.CheckState.Checked)

    def _press(self, event: QMouseEvent) -> None:
        self._pressed = None
        if event.button() != Qt.MouseButton.LeftButton:
            return
        item = self.itemAt(event.position().toPoint())
        wanted = Qt.ItemFlag.ItemIsUserCheckable | Qt.ItemFlag.ItemIsEnabled
        if item is not None and item.flags() & wanted == wanted:
            index = QPersistentModelIndex(self.indexFromItem(item))
            self._pressed = (index, item.checkState())
