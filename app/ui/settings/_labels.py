"""Small labels the settings pages share: a page's heading, a section's heading, a quiet hint
(muted, as every helper sentence on the pages), an error line. How they look is the theme's
style sheet (``#settingsHeading``, ``#settingsSection``, ``QLabel[muted="true"]``)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget

__all__ = ["error_label", "heading", "hint", "muted", "section"]


def heading(text: str, parent: QWidget) -> QLabel:
    """A page's title."""
    label = QLabel(text, parent)
    label.setObjectName("settingsHeading")
    return label


def section(text: str, parent: QWidget) -> QLabel:
    """A section's heading inside a page (bold, with room above it)."""
    label = QLabel(text, parent)
    label.setObjectName("settingsSection")
    return label


def muted(label: QLabel) -> QLabel:
    """Show ``label`` in the palette's quiet text colour, as every helper sentence (the theme's
    style sheet draws it; a foreground role as well would make Qt fade it to half)."""
    label.setProperty("muted", True)
    return label


def hint(text: str, parent: QWidget) -> QLabel:
    """A wrapped explanation in the palette's quiet text colour."""
    label = QLabel(text, parent)
    label.setObjectName("settingsHint")
    label.setWordWrap(True)
    return muted(label)


def error_label(parent: QWidget) -> QLabel:
    """A hidden line that says what went wrong when shown."""
    label = QLabel("", parent)
    label.setObjectName("settingsError")
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.hide()
    return label
