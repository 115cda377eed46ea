"""Thread > Incognito: the open thread uses no memory and keeps none while it is checked (the
thread's flag, kept with its tool choices)."""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QWidget

from app.services.workspace_tools import WorkspaceTools
from app.ui.chat.viewmodel import ChatViewModel
from app.ui.notifier import Notifier
from app.ui.tasks import spawn

__all__ = ["IncognitoSwitch"]


class IncognitoSwitch(QObject):
    """Keeps ``action`` (checkable, ``incognitoAction``) and ``mark`` (the header's
    "Incognito") showing the open thread's flag, and sets the flag when it is toggled."""

    def __init__(
        self,
        tools: WorkspaceTools,
        chat_vm: ChatViewModel,
        notifier: Notifier,
        action: QAction,
        mark: QWidget,
    ) -> None:
        super().__init__(action)
        self._tools = tools
        self._vm = chat_vm
        self._notifier = notifier
        self.action = action
        self.mark = mark
        action.setToolTip("No memory is used in this thread, and nothing in it is remembered")
        action.setEnabled(False)
        action.toggled.connect(self._toggled)
        chat_vm.threadOpened.connect(self.thread_opened)

    def thread_opened(self, thread_id: str) -> None:
        """Show the flag of the thread now open."""
        self.action.setEnabled(bool(thread_id))
        on = bool(thread_id) and self._tools.incognito(thread_id)
        self.action.blockSignals(True)
        self.action.setChecked(on)
        self.action.blockSignals(False)
        self.mark.setVisible(on)

    def _toggled(self, on: bool) -> None:
        thread_id = self._vm.thread_id
        if thread_id:
            spawn(self.set(thread_id, on))

    async def set(self, thread_id: str, on: bool) -> None:
        """Make ``thread_id`` incognito or not, and say what that means."""
        await self._tools.set_incognito(thread_id, on)
        if self._vm.thread_id == thread_id:
            self.mark.setVisible(on)
        self._notifier.show(
            "This thread is incognito: no memory is used in it and nothing in it is remembered."
            if on
            else "This thread uses and keeps memories again.",
            timeout_ms=5000,
        )
