"""A message's row actions (copy, edit, regenerate, delete) as the chat draws them: small
icon buttons under the message, shown on hover or focus and named by their tooltips."""

from __future__ import annotations

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QIcon, QPainter, QPalette

from app.ui.icons import icon

__all__ = ["ACTION_WIDTH", "ICONS", "LABELS", "draw_actions"]

LABELS = {"copy": "Copy", "edit": "Edit", "regenerate": "Regenerate", "delete": "Delete"}
"""A row action's name: its menu entry and its icon's tooltip."""
ICONS = {
    "copy": "file-copy-line",
    "edit": "pencil-line",
    "regenerate": "refresh-line",
    "delete": "delete-bin-line",
}
"""The icon a row action is drawn as."""
ACTION_WIDTH = 26
"""How wide a row action's icon button is."""

_icons: dict[str, QIcon] = {}


def _icon(action: str) -> QIcon:
    if action not in _icons:
        _icons[action] = icon(ICONS[action], "muted")
    return _icons[action]


def draw_actions(painter: QPainter, rects: dict[str, QRect], palette: QPalette) -> None:
    """Draw each action at its rect: its icon, in the muted text's colour, on a faint ground."""
    painter.save()
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(palette.color(QPalette.ColorRole.AlternateBase))
    for action, r in rects.items():
        painter.drawRoundedRect(r, 4, 4)
        _icon(action).paint(painter, r, Qt.AlignmentFlag.AlignCenter)
    painter.restore()
