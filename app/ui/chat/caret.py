"""``Caret``: the blinking bar at the end of a reply while it streams.

One timer for the whole chat, ticking only while a reply streams; each tick repaints the
caret's own small rectangle, never lays a row out again. The caret is drawn by the message
delegate at the end of the last line of the newest row's laid-out text.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, QPointF, QRect, QRectF, QTimer
from PySide6.QtGui import QColor, QPainter, QTextDocument
from PySide6.QtWidgets import QWidget

from app.ui.chat.message_layout import MessageLayout

__all__ = ["BLINK_MS", "Caret", "end_of_text"]

BLINK_MS = 530
"""Half a blink: as long as the caret shows, then as long as it hides."""

WIDTH = 2


def end_of_text(doc: QTextDocument) -> QRectF | None:
    """Where a caret goes after the last character of ``doc`` (its own coordinates), or
    ``None`` when the document has no laid-out line."""
    block = doc.lastBlock()
    while block.isValid() and block.layout().lineCount() == 0:
        block = block.previous()
    if not block.isValid():
        return None
    layout = block.layout()
    line = layout.lineAt(layout.lineCount() - 1)
    at = doc.documentLayout().blockBoundingRect(block).topLeft() + QPointF(0, line.y())
    return QRectF(at.x() + line.x() + line.naturalTextWidth() + 1, at.y(), WIDTH, line.height())


class Caret(QObject):
    """Blinks while :attr:`active`; :meth:`draw` paints it where the delegate says."""

    def __init__(self, viewport: QWidget) -> None:
        super().__init__(viewport)
        self._viewport = viewport
        self.active = False
        """Whether a reply is streaming (the newest row shows the caret)."""
        self.shown = True
        """The blink's phase."""
        self.drawn = QRect()
        """Where it was last drawn (the viewport's coordinates): what a tick repaints."""
        self._timer = QTimer(self)
        self._timer.setInterval(BLINK_MS)
        self._timer.timeout.connect(self._tick)

    def start(self) -> None:
        """A reply streams: show the caret and blink."""
        if not self.active:
            self.active, self.shown = True, True
            self._timer.start()

    def stop(self) -> None:
        """The reply ended: hide the caret and stop the timer."""
        if self.active:
            self.active = False
            self._timer.stop()
            self._viewport.update(self.drawn)
            self.drawn = QRect()

    def ticking(self) -> bool:
        """Whether the timer runs (it runs only while a reply streams)."""
        return self._timer.isActive()

    def _tick(self) -> None:
        self.shown = not self.shown
        if not self.drawn.isNull():
            self._viewport.update(self.drawn)

    def draw_after(self, painter: QPainter, laid: MessageLayout, colour: QColor) -> None:
        """Draw the caret after the last line of ``laid`` (the painter at its top left)."""
        if laid.parts:
            last = laid.parts[-1]
            where = end_of_text(last.doc)
            if where is not None:
                self.draw(painter, where.translated(0, last.top), colour)

    def draw(self, painter: QPainter, where: QRectF, colour: QColor) -> None:
        """Draw the caret at ``where`` (the painter's coordinates) in its phase, and remember
        its place on the viewport."""
        self.drawn = painter.transform().mapRect(where).toAlignedRect().adjusted(-1, -1, 1, 1)
        if self.shown:
            painter.fillRect(where, colour)
