"""Small painting helpers shared by the item delegates."""

from __future__ import annotations

from PySide6.QtCore import QRect, Qt
from PySide6.QtGui import QPainter, QPalette

__all__ = ["draw_focus_ring"]


def draw_focus_ring(painter: QPainter, palette: QPalette, box: QRect, radius: int) -> None:
    """Outline ``box`` in the highlight colour, so keyboard focus is always visible."""
    pen = painter.pen()
    pen.setColor(palette.color(QPalette.ColorRole.Highlight))
    pen.setWidth(2)
    painter.setPen(pen)
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.drawRoundedRect(box.adjusted(1, 1, -1, -1), radius, radius)
