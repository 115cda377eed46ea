"""``MemoryKeepCard``: what an agent proposes to remember, asked in the thread as a small card,
"Parley will remember: ... [Keep] [Edit] [Don't]", not in the approval dialog.

Keep approves the ``remember`` call; Edit opens the text to change before keeping (the call
then runs with the changed text, checked again as any edited call is); Don't denies it, and
the agent reads that it was not kept. Closing the window decides nothing: the call waits.
"""

from __future__ import annotations

import asyncio

from PySide6.QtCore import QEvent, Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.core.tools import ApprovalDecision, ApprovalRequest
from app.services.memory import MAX_MEMORY_CHARS, remembered_text
from app.text.hidden_chars import mark_hidden
from app.ui.theme import roles

__all__ = ["NOT_KEPT", "MemoryKeepCard"]

NOT_KEPT = "not kept: the user chose not to keep it"
"""What the agent reads when the person chose Don't."""


def _dark(widget: QWidget) -> bool:
    return widget.palette().color(QPalette.ColorRole.Window).lightness() < 128


class MemoryKeepCard(QFrame):
    """The card (object name ``memoryKeepCard``) with its text (``memoryKeepText``), the
    reason the agent gave (``memoryKeepWhy``), the field Edit opens (``memoryEditField``) and
    the buttons ``memoryKeepButton``, ``memoryEditButton`` and ``memoryDontButton``. Hidden
    until :meth:`ask` shows it."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("memoryKeepCard")
        self.setAccessibleName("Parley will remember")
        self.text = QLabel("", self)
        self.text.setObjectName("memoryKeepText")
        self.text.setTextFormat(Qt.TextFormat.PlainText)
        self.text.setWordWrap(True)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.why = QLabel("", self)
        self.why.setObjectName("memoryKeepWhy")
        self.why.setTextFormat(Qt.TextFormat.PlainText)
        self.why.setWordWrap(True)
        self.field = QLineEdit(self)
        self.field.setObjectName("memoryEditField")
        self.field.setAccessibleName("The memory to keep")
        self.field.setMaxLength(MAX_MEMORY_CHARS)
        self.field.hide()
        self.keep = QPushButton("Keep", self)
        self.keep.setObjectName("memoryKeepButton")
        self.keep.setDefault(True)
        self.edit = QPushButton("Edit", self)
        self.edit.setObjectName("memoryEditButton")
        self.dont = QPushButton("Don't", self)
        self.dont.setObjectName("memoryDontButton")
        buttons = QHBoxLayout()
        buttons.setSpacing(8)
        buttons.addStretch(1)
        for button in (self.keep, self.edit, self.dont):
            buttons.addWidget(button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 8, 16, 8)
        layout.setSpacing(4)
        layout.addWidget(self.text)
        layout.addWidget(self.why)
        layout.addWidget(self.field)
        layout.addLayout(buttons)
        self._request: ApprovalRequest | None = None
        self._painted_dark: bool | None = None
        self._answer: asyncio.Future[ApprovalDecision | None] | None = None
        self.keep.clicked.connect(self._keep)
        self.edit.clicked.connect(self._open_field)
        self.dont.clicked.connect(self._dont)
        self.field.returnPressed.connect(self._keep)
        self.field.textChanged.connect(lambda t: self.keep.setEnabled(bool(t.strip())))
        self.hide()

    def _paint(self) -> None:
        colours = roles(_dark(self))
        self._painted_dark = _dark(self)
        self.setStyleSheet(
            f"#memoryKeepCard {{ background: {colours.card}; border: 1px solid "
            f"{colours.border}; border-radius: 8px; margin: 4px 16px; }}"
            f"#memoryKeepText {{ color: {colours.text}; font-weight: 600; }}"
            f"#memoryKeepWhy {{ color: {colours.muted}; }}"
        )

    def changeEvent(self, event: QEvent) -> None:
        """Paint the card again when the theme changes between light and dark."""
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and _dark(self) != self._painted_dark:
            self._paint()

    async def ask(self, request: ApprovalRequest) -> ApprovalDecision | None:
        """Show ``request`` (a ``remember`` call) and wait for Keep, Edit then Keep, or
        Don't; ``None`` when :meth:`dismiss` ends the question undecided."""
        self._request = request
        proposed = remembered_text(request.args)
        self.text.setText(f"Parley will remember: {mark_hidden(proposed)}")
        self.setAccessibleDescription(proposed)
        why = request.args.get("why")
        who = request.agent or "The agent"
        reason = " ".join(why.split()) if isinstance(why, str) else ""
        self.why.setText(f"{who} proposes it: {mark_hidden(reason)}" if reason else "")
        self.why.setVisible(bool(reason))
        self.field.setText(proposed)
        self.field.hide()
        self.edit.show()
        self.keep.setEnabled(True)
        self._paint()
        self._answer = asyncio.get_running_loop().create_future()
        self.show()
        self.keep.setFocus()
        try:
            return await self._answer
        finally:
            self._answer = None
            self._request = None
            self.hide()

    def _decide(self, decision: ApprovalDecision | None) -> None:
        if self._answer is not None and not self._answer.done():
            self._answer.set_result(decision)

    def _open_field(self) -> None:
        self.field.show()
        self.edit.hide()
        self.field.setFocus()
        self.field.selectAll()

    def _keep(self) -> None:
        request = self._request
        if request is None:
            return
        text = " ".join(self.field.text().split())
        if self.field.isHidden() or text == remembered_text(request.args):
            self._decide(ApprovalDecision(call_id=request.call_id, decision="approve"))
        elif text:
            args = {**request.args, "text": text}
            self._decide(ApprovalDecision(call_id=request.call_id, decision="edit", args=args))

    def _dont(self) -> None:
        if self._request is not None:
            call_id = self._request.call_id
            self._decide(ApprovalDecision(call_id=call_id, decision="deny", reason=NOT_KEPT))

    def dismiss(self) -> None:
        """End the question without deciding (the window closes, or it was answered
        elsewhere)."""
        self._decide(None)
