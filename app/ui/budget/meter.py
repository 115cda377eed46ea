"""``budgetMeter``: the current run's spending against its limits, at a glance.

A thin bar shows the largest share of any limit already used (accent, amber from 80 %, amber
and "paused" at a budget pause); the text beside it reads "3/20 calls · 1.2k tokens"; the
tooltip and the accessible description list every limit.
"""

from __future__ import annotations

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import QHBoxLayout, QLabel, QWidget

from app.core.budget import BudgetLimits, BudgetUsage
from app.core.graph.budget_pause import BudgetPause
from app.ui.budget.text import LIMIT_WORDS, details, fraction_used, summary, value_text
from app.ui.theme import ACCENT

__all__ = ["BudgetMeter"]

WARN = "#d08a1e"


class _Bar(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.fraction = 0.0
        self.colour = QColor(ACCENT)
        self.setFixedSize(48, 6)

    def sizeHint(self) -> QSize:
        return QSize(48, 6)

    def paintEvent(self, _event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setPen(Qt.PenStyle.NoPen)
        track = self.palette().color(QPalette.ColorRole.Mid)
        rect = QRectF(self.rect())
        painter.setBrush(track)
        painter.drawRoundedRect(rect, 3, 3)
        if self.fraction > 0:
            filled = QRectF(
                rect.x(), rect.y(), max(6.0, rect.width() * self.fraction), rect.height()
            )
            painter.setBrush(self.colour)
            painter.drawRoundedRect(filled, 3, 3)


class BudgetMeter(QWidget):
    """The header's budget meter (object name ``budgetMeter``)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("budgetMeter")
        self.setAccessibleName("Budget")
        self.bar = _Bar(self)
        self.label = QLabel("", self)
        self.label.setObjectName("budgetMeterText")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(8)
        layout.addWidget(self.bar, 0, Qt.AlignmentFlag.AlignVCenter)
        layout.addWidget(self.label)
        self.paused = False
        self._last: tuple[BudgetUsage, BudgetLimits] | None = None
        self.bar.hide()

    def text(self) -> str:
        """What the meter reads."""
        return self.label.text()

    def show_run(self, usage: BudgetUsage, limits: BudgetLimits, *, paused: bool = False) -> None:
        """Show the running (or paused) run's spending against ``limits``."""
        self.paused = paused
        self._last = (usage, limits)
        fraction = fraction_used(usage, limits)
        self.bar.fraction = fraction
        self.bar.colour = QColor(WARN if paused or fraction >= 0.8 else ACCENT)
        self.bar.setVisible(fraction > 0 or paused)
        self.bar.update()
        line = summary(usage, limits)
        self.label.setText(f"Paused · {line}" if paused else line)
        rows = details(usage, limits)
        head = "This run is paused at a limit" if paused else "This run's budget"
        table = "".join(
            f"<tr><td>{what}</td><td>&nbsp;&nbsp;{value}</td></tr>" for what, value in rows
        )
        self.setToolTip(f"<b>{head}</b><table>{table}</table>Default limits: Settings › Limits")
        self.setAccessibleDescription(
            f"{head}: " + "; ".join(f"{what}: {value}" for what, value in rows)
        )

    def mark_paused(self, pause: BudgetPause) -> None:
        """Show the run as paused at ``pause``'s limit (with its last spending when known,
        as after a restart only the pause itself is)."""
        if self._last is not None:
            self.show_run(*self._last, paused=True)
            return
        _adjective, noun = LIMIT_WORDS.get(pause.limit, ("", pause.limit))
        used, value = value_text(pause.limit, pause.used), value_text(pause.limit, pause.value)
        self.paused = True
        self.bar.fraction = 1.0
        self.bar.colour = QColor(WARN)
        self.bar.show()
        self.bar.update()
        self.label.setText(f"Paused · {used}/{value} {noun}")
        self.setToolTip(
            f"<b>This run is paused at a limit</b><br>{noun.capitalize()}: {used} of {value}"
        )
        self.setAccessibleDescription(
            f"This run is paused at a limit: {noun.capitalize()}: {used} of {value}"
        )

    def show_total(self, tokens: int) -> None:
        """No run: show the tokens the thread has used so far."""
        self.paused = False
        self._last = None
        self.bar.hide()
        self.label.setText(f"{tokens:,} tokens" if tokens else "")
        self.setToolTip("Tokens this thread has used" if tokens else "")
        self.setAccessibleDescription(f"This thread has used {tokens:,} tokens" if tokens else "")
