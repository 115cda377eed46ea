"""``Notifier``: the one door for user-facing notices. Widgets and helpers are handed the
window's notifier and call :meth:`Notifier.show`; the window shows what it emits in its
notice bar. Nothing but the window touches the bar itself."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from PySide6.QtCore import QObject, Signal

__all__ = ["Level", "Notice", "Notifier"]

Level = Literal["info", "warning", "error", "progress"]


@dataclass(frozen=True, slots=True)
class Notice:
    """One notice: its sentence, how serious it is, at most one action (a label and what it
    does) and how long it stays (``None``: until dismissed or replaced)."""

    text: str
    level: Level = "info"
    action: tuple[str, Callable[[], None]] | None = None
    timeout_ms: int | None = None


class Notifier(QObject):
    """Carries notices from whoever has something to say to the window that shows them."""

    shown = Signal(Notice)
    """A notice to show now (it replaces the one shown)."""

    def show(
        self,
        text: str,
        *,
        level: Level = "info",
        action: tuple[str, Callable[[], None]] | None = None,
        timeout_ms: int | None = None,
    ) -> None:
        """Say ``text`` (see :class:`Notice` for the rest)."""
        self.shown.emit(Notice(text, level, action, timeout_ms))
