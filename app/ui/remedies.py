"""``Remedies``: a problem said in the notice bar with the one thing that fixes it (Retry, Set
the API key, Choose a model), and those remedies carried out, also when the chat's error
block offers them."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QWidget

from app.core.errors import ParleyError
from app.services.events import Problem
from app.services.settings.preferences import Preferences
from app.ui.chat.viewmodel import ChatViewModel
from app.ui.dialogs import ask, text_dialog
from app.ui.notifier import Notifier
from app.ui.tasks import spawn
from app.ui.window_part import ThreadPart

__all__ = ["Remedies"]


def _later(coro: Coroutine[Any, Any, Any]) -> None:
    spawn(coro)


class Remedies(ThreadPart):
    """Shows problems with their remedy and carries remedies out; dialogs open over
    ``window``."""

    pickModelRequested = Signal()
    """The remedy is another model: open the picker."""
    settingsRequested = Signal()
    """The remedy is in the settings: open them."""

    def __init__(
        self,
        preferences: Preferences,
        chat_vm: ChatViewModel,
        notifier: Notifier,
        window: QWidget,
    ) -> None:
        super().__init__(chat_vm, notifier, window)
        self.preferences = preferences
        """Where an API key a remedy asks for is kept."""

    def show_problem(self, problem: Problem) -> None:
        """Say ``problem`` with a button for its remedy, if it has one."""
        action: tuple[str, Callable[[], None]] | None = None
        for remedy in problem.remedies:
            if remedy.action == "retry":
                action = (remedy.label, lambda: _later(self.chat_vm.regenerate()))
            elif remedy.action == "set_key":
                action = (
                    remedy.label,
                    lambda t=remedy.target or "": _later(self.run("set_key", t)),
                )
            elif remedy.action == "pick_model":
                action = (remedy.label, self.pickModelRequested.emit)
        self.notifier.show(problem.text, level="error", action=action)

    async def run(self, action: str, target: str) -> None:
        """Carry out the remedy ``action`` (``set_key`` asks for the key of ``target``)."""
        if action == "set_key":
            dialog, edit = text_dialog(
                self.over(),
                "API key",
                f"Paste the API key for {target}. It is kept in your system "
                "keyring, never in Parley's files.",
                secret=True,
            )
            if await ask(dialog) and edit.text().strip():
                try:
                    where = await self.preferences.set_key(target, edit.text())
                except ParleyError as exc:
                    self.notifier.show(str(exc), level="error")
                    return
                self.notifier.show(where, timeout_ms=4000)
        elif action == "pick_model":
            self.pickModelRequested.emit()
        elif action == "open_settings":
            self.settingsRequested.emit()
