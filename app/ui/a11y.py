"""Telling screen readers what changed without moving focus (a finished reply, a notice)."""

from __future__ import annotations

from PySide6.QtGui import QAccessible
from PySide6.QtWidgets import QWidget

__all__ = ["announce"]


def announce(widget: QWidget, text: str) -> None:
    """Ask assistive technology to read ``text`` out, politely, on behalf of ``widget``."""
    from PySide6.QtGui import QAccessibleAnnouncementEvent

    if not QAccessible.isActive():
        return
    QAccessible.updateAccessibility(QAccessibleAnnouncementEvent(widget, text))
