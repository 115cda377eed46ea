"""``WindowPart``: the base of a window's helpers that are not widgets (export and import,
the model picker's requests, remedies, the data actions): a child of the window, which the
dialogs they open sit over. They hold no reference to the window but Qt's parent link, and
each is handed only the services it calls."""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QWidget

from app.ui.chat.viewmodel import ChatViewModel
from app.ui.notifier import Notifier

__all__ = ["ThreadPart", "WindowPart"]


class WindowPart(QObject):
    """A helper living as long as ``window``; :meth:`over` is where its dialogs open."""

    def __init__(self, window: QWidget) -> None:
        super().__init__(window)

    def over(self) -> QWidget:
        """The window this part belongs to."""
        window = self.parent()
        assert isinstance(window, QWidget)
        return window


class ThreadPart(WindowPart):
    """A part that acts on the open thread (``chat_vm``) and says how it went through
    ``notifier``; a subclass takes the services it calls besides."""

    def __init__(self, chat_vm: ChatViewModel, notifier: Notifier, window: QWidget) -> None:
        super().__init__(window)
        self.chat_vm = chat_vm
        self.notifier = notifier
