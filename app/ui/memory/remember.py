"""Remembering by hand in the window: **Remember this…** on a message (a small dialog, its
text to edit first, kept with the message as its source) and ``/remember TEXT`` typed in the
message box (kept as "added by you", nothing sent). An incognito thread keeps nothing."""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QMenu,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from app.core.errors import ParleyError
from app.core.state import Message
from app.services.memory import MemoryService
from app.services.workspace_tools import WorkspaceTools
from app.ui.chat.viewmodel import ChatViewModel
from app.ui.notifier import Notifier
from app.ui.tasks import spawn

__all__ = ["COMMAND", "RememberByHand", "RememberDialog"]

COMMAND = "/remember"
"""What a message typed to be remembered, not sent, starts with."""

_OFFERED_CHARS = 300
"""How much of a message the dialog offers to keep (the person trims it to what matters)."""


def _one_line(text: str) -> str:
    return " ".join(text.split())


class RememberDialog(QDialog):
    """ "Remember this": the text to keep, editable, with Keep and Cancel."""

    def __init__(self, text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("rememberDialog")
        self.setWindowTitle("Remember this")
        layout = QVBoxLayout(self)
        layout.addWidget(
            QLabel("Parley will remember this for every agent (edit it to what matters):")
        )
        self.text = QPlainTextEdit(text)
        self.text.setObjectName("rememberText")
        self.text.setTabChangesFocus(True)
        layout.addWidget(self.text)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.keep = buttons.addButton("Keep", QDialogButtonBox.ButtonRole.AcceptRole)
        self.keep.setObjectName("rememberKeepButton")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.resize(460, 200)


class RememberByHand(QObject):
    """The window's two ways of keeping a memory by hand (see the module)."""

    def __init__(
        self,
        memory: MemoryService,
        tools: WorkspaceTools,
        chat_vm: ChatViewModel,
        notifier: Notifier,
        parent: QWidget,
    ) -> None:
        super().__init__(parent)
        self._memory = memory
        self._tools = tools
        self._vm = chat_vm
        self._notifier = notifier
        self._parent = parent
        self.dialog: RememberDialog | None = None

    def _incognito(self) -> bool:
        thread_id = self._vm.thread_id
        return bool(thread_id) and self._tools.incognito(thread_id or "")

    def extend_menu(self, menu: QMenu, message: Message, row: int) -> None:
        """Add **Remember this…** to a message's menu (greyed out in an incognito thread)."""
        if not message.text().strip():
            return
        action = menu.addAction("Remember this…", lambda: self.ask(message))
        action.setObjectName("rememberThisAction")
        if self._incognito():
            action.setEnabled(False)
            action.setToolTip("This thread is incognito: nothing in it is remembered")

    def ask(self, message: Message) -> RememberDialog:
        """Open the dialog for ``message``; Keep keeps the text as it then reads."""
        offered = _one_line(message.text())
        if len(offered) > _OFFERED_CHARS:
            offered = offered[: _OFFERED_CHARS - 1] + "…"
        dialog = RememberDialog(offered, self._parent)
        source = (self._vm.thread_id, str(message.message_id))
        dialog.accepted.connect(
            lambda: spawn(self._keep(dialog.text.toPlainText(), source[0], source[1]))
        )
        self.dialog = dialog
        dialog.open()
        return dialog

    def typed(self, text: str) -> bool:
        """Whether ``text`` is ``/remember ...`` (then it is kept, not sent)."""
        head, _, rest = text.strip().partition(" ")
        if head.lower() != COMMAND:
            return False
        if not rest.strip():
            self._notifier.show("Nothing to remember: write the note after /remember.")
        else:
            spawn(self._keep(rest, None, None))
        return True

    async def _keep(self, text: str, thread_id: str | None, message_id: str | None) -> None:
        line = _one_line(text)
        if thread_id is not None and self._tools.incognito(thread_id):
            self._notifier.show("This thread is incognito: nothing in it is remembered.")
            return
        try:
            source = (thread_id, message_id) if thread_id else None
            await self._memory.add(line, source=source)
        except ParleyError as exc:
            self._notifier.show(f"Not remembered: {exc}", level="error")
            return
        self._notifier.show(f"Parley will remember: {line}", timeout_ms=4000)
