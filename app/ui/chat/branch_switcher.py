"""``BranchSwitcher``: ``‹ 2/3 ›`` under a message that has other versions (an edited
question, an answer given again). The chat view places one on each such row in sight."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import QRect, QSize, Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QToolButton, QWidget

__all__ = ["SWITCHER_HEIGHT", "SWITCHER_WIDTH", "BranchSwitcher", "Switchers"]

SWITCHER_WIDTH = 72
SWITCHER_HEIGHT = 20


class BranchSwitcher(QWidget):
    """Shows which version of a message is shown, with buttons for the previous and the next
    one (object name ``branchSwitcher``)."""

    switchRequested = Signal(str, int)
    """Show version ``index`` (from 1) of the message ``id``."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("branchSwitcher")
        self.message_id = ""
        self.shown = self.count = 0
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        self.previous = self._button("‹", "previousBranch", "Previous version", -1)
        self.label = QLabel(self)
        self.label.setObjectName("branchNumber")
        self.label.setAlignment(Qt.AlignmentFlag.AlignCenter)
        small = self.label.font()  # as the footer's other words (the delegate's small font)
        small.setPointSizeF(max(7.0, small.pointSizeF() * 0.85))
        self.label.setFont(small)
        layout.addWidget(self.previous)
        layout.addWidget(self.label, 1)
        self.next = self._button("›", "nextBranch", "Next version", 1)
        layout.addWidget(self.next)
        self.setFixedSize(SWITCHER_WIDTH, SWITCHER_HEIGHT)

    def _button(self, text: str, name: str, accessible: str, step: int) -> QToolButton:
        button = QToolButton(self)
        button.setObjectName(name)
        button.setText(text)
        button.setAccessibleName(accessible)
        button.setToolTip(f"{accessible} (Alt+{'Left' if step < 0 else 'Right'})")
        button.setAutoRaise(True)
        button.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the keyboard uses Alt+Left/Right
        button.setCursor(Qt.CursorShape.PointingHandCursor)
        button.setFixedSize(QSize(20, SWITCHER_HEIGHT))
        bigger = button.font()  # the arrows are thin marks: a larger size makes them targets
        bigger.setPointSizeF(bigger.pointSizeF() * 1.35)
        button.setFont(bigger)
        button.clicked.connect(lambda: self._step(step))
        return button

    def show_version(self, message_id: str, shown: int, count: int) -> None:
        """Say that version ``shown`` of ``count`` of message ``message_id`` is shown."""
        self.message_id, self.shown, self.count = message_id, shown, count
        self.label.setText(f"{shown}/{count}")
        self.setAccessibleName(f"Version {shown} of {count}")
        self.previous.setEnabled(shown > 1)
        self.next.setEnabled(shown < count)

    def _step(self, step: int) -> None:
        target = self.shown + step
        if 1 <= target <= self.count:
            self.switchRequested.emit(self.message_id, target)


class Switchers:
    """The switchers of the rows in sight, made once and used again as the view scrolls."""

    def __init__(self, parent: QWidget, on_switch: Callable[[str, int], None]) -> None:
        self._parent = parent
        self._on_switch = on_switch
        self._made: list[BranchSwitcher] = []

    def place(self, spots: Sequence[tuple[str, tuple[int, int], QRect]]) -> None:
        """Show one switcher per ``(message id, (shown, count), where)``; hide the rest."""
        for used, (message_id, (shown, count), rect) in enumerate(spots):
            if used == len(self._made):
                made = BranchSwitcher(self._parent)
                made.switchRequested.connect(self._on_switch)
                self._made.append(made)
            switcher = self._made[used]
            switcher.show_version(message_id, shown, count)
            switcher.setGeometry(rect)
            switcher.show()
        for switcher in self._made[len(spots) :]:
            switcher.hide()

    def shown(self) -> list[BranchSwitcher]:
        """The switchers shown now, top to bottom."""
        return sorted((s for s in self._made if s.isVisible()), key=lambda s: s.y())
