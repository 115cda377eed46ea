"""The composer: where a message is written, with send/stop, attach and an edit mode.

Enter sends, Shift+Enter starts a new line, Ctrl+Shift+Enter (or Compare…) asks several models
at once, Esc stops a running reply (or leaves edit mode), Up in an empty composer edits the
last message. The text is cleared only once the message
was accepted, so nothing typed is lost when a send fails.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.ui.elided import ElidedLabel
from app.ui.icons import icon_button

__all__ = ["ComposerEdit", "ComposerPanel"]


class ComposerEdit(QPlainTextEdit):
    """The text box (object name ``composer``)."""

    submitted = Signal()
    compareWanted = Signal()
    escapePressed = Signal()
    upInEmpty = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("composer")
        self.setAccessibleName("Message")
        self.setAccessibleDescription("Enter sends, Shift+Enter starts a new line")
        self.setPlaceholderText("Message Parley…   (Enter sends, Shift+Enter new line)")
        self.setTabChangesFocus(True)
        self.document().contentsChanged.connect(self.updateGeometry)
        self.setFrameShape(QFrame.Shape.NoFrame)

    def sizeHint(self) -> QSize:
        lines = max(1, min(8, int(self.document().size().height())))
        height = self.fontMetrics().lineSpacing() * lines + 18
        return QSize(400, height)

    def minimumSizeHint(self) -> QSize:
        return QSize(100, self.fontMetrics().lineSpacing() + 18)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = event.key()
        mods = event.modifiers()
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            both = Qt.KeyboardModifier.ShiftModifier | Qt.KeyboardModifier.ControlModifier
            if mods & both == both:
                self.compareWanted.emit()
            elif mods & Qt.KeyboardModifier.ShiftModifier:
                self.insertPlainText("\n")
            else:
                self.submitted.emit()
            return
        if key == Qt.Key.Key_Escape:
            self.escapePressed.emit()
            return
        if key == Qt.Key.Key_Up and not self.toPlainText():
            self.upInEmpty.emit()
            return
        super().keyPressEvent(event)


class ComposerPanel(QFrame):
    """The composer with its buttons; emits intents, holds no conversation state."""

    sendRequested = Signal(str)
    """Send this text (or, in edit mode, send it as an edit of :attr:`editing`)."""
    stopRequested = Signal()
    compareRequested = Signal(str)
    """Ask several models this text at once (Compare…, Ctrl+Shift+Enter)."""
    editLastRequested = Signal()
    attachRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("composerPanel")
        self.editing: str | None = None
        """The id of the message being edited, in edit mode."""
        self.running = False
        self._attached = False
        self._build_boxes()
        self._build_buttons()
        self._lay_out()

    def _build_boxes(self) -> None:
        self.edit_banner = QLabel("", self)
        self.edit_banner.setObjectName("editBanner")
        self.edit_banner.hide()

        self.edit = ComposerEdit(self)
        self.edit.submitted.connect(self._submit)
        self.edit.compareWanted.connect(self._compare)
        self.edit.escapePressed.connect(self._escape)
        self.edit.upInEmpty.connect(self.editLastRequested)

    def _build_buttons(self) -> None:
        self.attach_button = QPushButton(self)
        self.attach_button.setObjectName("attachButton")
        icon_button(self.attach_button, "attachment-2", "Attach files", "Attach files (Ctrl+O)")
        self.attach_button.clicked.connect(self.attachRequested)

        self.hint = ElidedLabel("", self)  # a long agent's name never widens the window
        self.hint.setObjectName("composerHint")

        self.send_button = QPushButton(self)
        self.send_button.setObjectName("sendButton")
        icon_button(self.send_button, "arrow-up-line", "Send message", "Send (Enter)", "on_accent")
        self.send_button.setDefault(False)
        self.send_button.clicked.connect(self._submit)

        self.compare_button = QPushButton(self)
        self.compare_button.setObjectName("compareButton")
        icon_button(
            self.compare_button,
            "layout-column-line",
            "Compare models",
            "Send to several models at once (Ctrl+Shift+Enter)",
        )
        self.compare_button.clicked.connect(self._compare)

        self.stop_button = QPushButton(self)
        self.stop_button.setObjectName("stopButton")
        icon_button(self.stop_button, "stop-fill", "Stop the reply", "Stop (Esc)")
        self.stop_button.clicked.connect(self.stopRequested)
        self.stop_button.hide()

    def _lay_out(self) -> None:
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(8)
        row.addWidget(self.attach_button)
        row.addWidget(self.hint, 1)
        row.addWidget(self.compare_button)
        row.addWidget(self.stop_button)  # where Send is: Send turns into Stop while a reply runs
        row.addWidget(self.send_button)
        self._row = row

        box = QFrame(self)  # one raised box: the text, then the row of buttons
        box.setObjectName("composerBox")
        inner = QVBoxLayout(box)
        inner.setContentsMargins(12, 8, 8, 8)
        inner.setSpacing(4)
        inner.addWidget(self.edit)
        inner.addLayout(row)
        self.box = box

        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 8, 16, 12)
        layout.setSpacing(8)
        layout.addWidget(self.edit_banner)
        layout.addWidget(box)
        self._column = layout
        self.setTabOrder(self.edit, self.attach_button)
        self.setTabOrder(self.attach_button, self.compare_button)
        self.setTabOrder(self.compare_button, self.send_button)

    def place_actions(self, buttons: Sequence[QWidget]) -> None:
        """Put ``buttons`` after Attach, in this order, which is also their tab order."""
        previous: QWidget = self.attach_button
        for index, button in enumerate(buttons, start=1):
            button.setParent(self.box)
            self._row.insertWidget(index, button)
            self.setTabOrder(previous, button)
            previous = button
        self.setTabOrder(previous, self.compare_button)
        self.setTabOrder(self.compare_button, self.send_button)

    def place_attachments(self, bar: QWidget) -> None:
        """Put ``bar`` (the pending attachments) between the edit banner and the text box; it
        shows and hides itself."""
        bar.setParent(self)
        self._column.insertWidget(self._column.indexOf(self.edit_banner) + 1, bar)

    def address(self, name: str) -> None:
        """Say whom a message goes to (the thread's agent) in the empty message box."""
        if not self.edit.isReadOnly():
            self.edit.setPlaceholderText(f"Message {name}…   (Enter sends, Shift+Enter new line)")

    def set_hint(self, text: str) -> None:
        """Say ``text`` beside the buttons (a reply running, a message held)."""
        self.hint.setText(text)

    def set_attached(self, attached: bool) -> None:
        """Whether files are attached: then an empty text may be sent with them."""
        self._attached = attached

    def attached(self) -> bool:
        """Whether files are attached (see :meth:`set_attached`)."""
        return self._attached

    def text(self) -> str:
        """What is written."""
        return self.edit.toPlainText()

    def accept_sent(self) -> None:
        """The message went out: clear the box and leave edit mode."""
        self.edit.clear()
        self.leave_edit_mode()

    def set_running(self, running: bool) -> None:
        """Show Stop while a reply streams, Send otherwise."""
        self.running = running
        self.stop_button.setVisible(running)
        self.send_button.setVisible(not running)

    def enter_edit_mode(self, message_id: str, text: str) -> None:
        """Edit an earlier message: sending forks the thread there."""
        self.editing = message_id
        self.edit.setPlainText(text)
        self.edit_banner.setText(
            "Editing a message: Enter sends it as a new branch of this thread, Esc cancels."
        )
        self.edit_banner.show()
        self.edit.setFocus()
        self.edit.moveCursor(self.edit.textCursor().MoveOperation.End)

    def leave_edit_mode(self) -> None:
        """Back to writing a new message."""
        if self.editing is not None:
            self.editing = None
            self.edit_banner.hide()

    def _submit(self) -> None:
        text = self.text()
        empty = not text.strip() and (self.editing is not None or not self.attached())
        if empty:
            return
        self.sendRequested.emit(text)

    def _compare(self) -> None:
        if self.editing is None and not self.edit.isReadOnly():
            self.compareRequested.emit(self.text())

    def _escape(self) -> None:
        if self.editing is not None:
            self.leave_edit_mode()
            self.edit.clear()
        elif self.running:
            self.stopRequested.emit()
