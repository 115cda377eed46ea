"""``Unfolding``: a card's row growing or shrinking to its new height when the card unfolds or
folds, over :data:`UNFOLD_MS`, instead of jumping.

The card's fold state changes at once (what the row says, what a screen reader hears and what
a click hits are the new state's from the first moment); only the row's height moves. While it
unfolds, the new content is drawn clipped to the growing row; while it folds, the content it
had stays drawn, clipped to the shrinking row, until the row reaches its folded height. One
row moves at a time: another card toggled meanwhile ends the first motion where it was going.
Nothing moves when the style says widgets are not animated (its animation duration is 0), or
while the view is hidden.
"""

from __future__ import annotations

from PySide6.QtCore import QEasingCurve, QObject, QVariantAnimation
from PySide6.QtWidgets import QAbstractItemView, QProxyStyle, QStyle, QStyleOption, QWidget

__all__ = ["UNFOLD_MS", "StillStyle", "Unfolding"]

UNFOLD_MS = 140
"""How long a card takes to unfold or fold."""


class Unfolding(QObject):
    """The one row whose height is moving, from where it was to where it lays out now."""

    def __init__(self, view: QAbstractItemView) -> None:
        super().__init__(view)
        self._view = view
        self.message_id: str | None = None
        """The moving row's message, or ``None`` when no row moves."""
        self.shown: frozenset[str] | None = None
        """The card keys the row is drawn with while it moves (those it had, while it
        folds), or ``None`` to draw it as it is now."""
        self._from = 0
        self._progress = 1.0
        self._motion = QVariantAnimation(self)
        self._motion.setStartValue(0.0)
        self._motion.setEndValue(1.0)
        self._motion.setDuration(UNFOLD_MS)
        self._motion.setEasingCurve(QEasingCurve.Type.OutCubic)
        self._motion.valueChanged.connect(self._step)
        self._motion.finished.connect(self.stop)

    def enabled(self) -> bool:
        """Whether rows move at all: the view is shown and its style animates widgets."""
        style = self._view.style()
        hint = QStyle.StyleHint.SH_Widget_Animation_Duration
        return self._view.isVisible() and style.styleHint(hint, None, self._view) > 0

    def start(self, message_id: str, height: int, shown: frozenset[str] | None) -> None:
        """Move the row of ``message_id`` from ``height`` (what it showed before the toggle)
        to the height it lays out at now, drawn with ``shown`` meanwhile."""
        self.stop()
        if height <= 0 or not self.enabled():
            return
        self.message_id, self.shown, self._from, self._progress = message_id, shown, height, 0.0
        self._motion.start()

    def height(self, natural: int) -> int:
        """The moving row's height now, given the height it lays out at (``natural``)."""
        return round(self._from + (natural - self._from) * self._progress)

    def moving(self) -> bool:
        """Whether a row is moving."""
        return self.message_id is not None

    def stop(self) -> None:
        """End the motion: the row takes the height it lays out at."""
        if self._motion.state() == QVariantAnimation.State.Running:
            self._motion.stop()
        if self.message_id is None:
            return
        self.message_id, self.shown, self._progress = None, None, 1.0
        self._relayout()

    def _step(self, value: object) -> None:
        if self.message_id is None or not isinstance(value, float):
            return
        self._progress = value
        self._relayout()

    def _relayout(self) -> None:
        self._view.scheduleDelayedItemsLayout()
        self._view.viewport().update()


class StillStyle(QProxyStyle):
    """The application's style, animating nothing (its widgets' animation duration is 0):
    a view given it unfolds its cards at once. Keep a reference while a widget uses it (a
    widget does not own its style)."""

    def styleHint(
        self,
        hint: QStyle.StyleHint,
        option: QStyleOption | None = None,
        widget: QWidget | None = None,
        returned: object = None,
    ) -> int:
        """0 for the animation duration, the application style's answer otherwise."""
        if hint == QStyle.StyleHint.SH_Widget_Animation_Duration:
            return 0
        return super().styleHint(hint, option, widget, returned)  # type: ignore[arg-type]
