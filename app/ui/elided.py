"""``ElidedLabel``: a one-line label that takes the room its layout has and no more, shown cut
with "…" when its text is longer, so a long text (a title, an agent's name) never widens the
window."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QPainter, QPaintEvent, QResizeEvent
from PySide6.QtWidgets import QLabel, QWidget

__all__ = ["ElidedLabel"]


class ElidedLabel(QLabel):
    """A plain-text :class:`QLabel` drawn elided to its width: :meth:`text` stays the whole
    text, :meth:`shown_text` is what shows, and the tooltip (:meth:`tip_for`) gives the whole
    text when it is cut."""

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self.setTextFormat(Qt.TextFormat.PlainText)

    def minimumSizeHint(self) -> QSize:
        whole = super().minimumSizeHint()
        margins = self.contentsMargins().left() + self.contentsMargins().right()
        least = self.fontMetrics().horizontalAdvance("Mmmm…") + margins
        return QSize(min(whole.width(), least), whole.height())

    def shown_text(self) -> str:
        """The text as it fits the label's width now (elided with "…" when it does not)."""
        width = self.contentsRect().width()
        return self.fontMetrics().elidedText(self.text(), Qt.TextElideMode.ElideRight, width)

    def tip_for(self, cut: bool) -> str:
        """The tooltip: the whole text when it is ``cut``."""
        return self.text() if cut else ""

    def paintEvent(self, _event: QPaintEvent) -> None:
        painter = QPainter(self)
        self.drawFrame(painter)
        self.style().drawItemText(
            painter,
            self.contentsRect(),
            int(self.alignment()),
            self.palette(),
            self.isEnabled(),
            self.shown_text(),
            self.foregroundRole(),
        )

    def setText(self, text: str) -> None:
        """Show ``text`` (elided to the width the layout gives it)."""
        super().setText(text)
        self._tip()

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._tip()

    def _tip(self) -> None:
        self.setToolTip(self.tip_for(self.shown_text() != self.text()))
