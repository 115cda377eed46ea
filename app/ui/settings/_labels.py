"""Small labels the settings pages share: a heading, a quiet hint, an error line."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QLabel, QWidget

__all__ = ["error_label", "heading", "hint"]


def heading(text: str, parent: QWidget) -> QLabel:
    """A section heading (bold, a little larger)."""
    label = QLabel(text, parent)
    label.setObjectName("settingsHeading")
    font = label.font()
    font.setBold(True)
    font.setPointSizeF(font.pointSizeF() * 1.1)
    label.setFont(font)
    return label


def hint(text: str, parent: QWidget) -> QLabel:
    """A wrapped explanation in the palette's quiet text colour."""
    label = QLabel(text, parent)
    label.setObjectName("settingsHint")
    label.setWordWrap(True)
    label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
    return label


def error_label(parent: QWidget) -> QLabel:
    """A hidden line that says what went wrong when shown."""
    label = QLabel("", parent)
    label.setObjectName("settingsError")
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.hide()
    return label
