"""The notice bar: the one place app-level messages appear (model loading, a problem that is
not part of a thread, a passing note), with at most one action button."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget

from app.ui.notifier import Notice

__all__ = ["NoticeBar"]


class NoticeBar(QFrame):
    """A slim bar under the header (object name ``noticeBar``)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("noticeBar")
        self.setAccessibleName("Notice")
        self.label = QLabel("", self)
        self.label.setObjectName("noticeText")
        self.label.setTextFormat(Qt.TextFormat.PlainText)  # notices quote files and servers
        self.label.setWordWrap(True)
        self.action = QPushButton("", self)
        self.action.setObjectName("noticeAction")
        self.action.hide()
        self.close_button = QPushButton("Dismiss", self)
        self.close_button.setObjectName("noticeDismiss")
        self.close_button.setAccessibleName("Dismiss notice")
        self.close_button.clicked.connect(self.hide)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(16, 6, 12, 6)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.action)
        layout.addWidget(self.close_button)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.hide)
        self._callback: Callable[[], None] | None = None
        self.action.clicked.connect(self._act)
        self.level = "info"
        self.hide()

    def show_message(
        self,
        text: str,
        *,
        level: str = "info",
        action: tuple[str, Callable[[], None]] | None = None,
        timeout_ms: int | None = None,
    ) -> None:
        """Show ``text`` (``level``: info, warning or error), optionally with one action."""
        self.level = level
        self.setProperty("level", level)
        self.style().unpolish(self)
        self.style().polish(self)
        self.label.setText(text)
        self.setAccessibleDescription(text)
        if action is None:
            self.action.hide()
            self._callback = None
        else:
            self.action.setText(action[0])
            self._callback = action[1]
            self.action.show()
        self.close_button.setVisible(level != "progress")
        self.show()
        if timeout_ms:
            self._timer.start(timeout_ms)
        else:
            self._timer.stop()

    def show_notice(self, notice: Notice) -> None:
        """Show what a :class:`~app.ui.notifier.Notifier` emitted."""
        self.show_message(
            notice.text, level=notice.level, action=notice.action, timeout_ms=notice.timeout_ms
        )

    def _act(self) -> None:
        callback = self._callback
        self.hide()
        if callback is not None:
            callback()
