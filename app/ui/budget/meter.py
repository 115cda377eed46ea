"""``budgetMeter``: the current run's spending against its limits, at a glance.

A thin bar shows the largest share of any limit already used (accent, amber from 80 %, amber
and "paused" at a budget pause); the text beside it reads "3/20 calls · 1.2k tokens"; the
tooltip and the accessible description list every limit and, when delegate agents spent part of
the run's budget, who spent what.
"""

from __future__ import annotations

import html
from collections.abc import Mapping

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPalette
from PySide6.QtWidgets import QHBoxLayout, QLabel, QWidget

from app.core.budget import BudgetLimits, BudgetUsage
from app.core.graph.budget_pause import BudgetPause
from app.text.hidden_chars import mark_hidden
from app.ui.budget.text import LIMIT_WORDS, details, fraction_used, summary, value_text
from app.ui.theme import ACCENT, LIGHT

__all__ = ["BudgetMeter", "agent_rows"]

WARN = LIGHT.warning_mark


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
        self._by_agent: dict[str, BudgetUsage] = {}
        self.bar.hide()

    def text(self) -> str:
        """What the meter reads."""
        return self.label.text()

    def show_run(
        self,
        usage: BudgetUsage,
        limits: BudgetLimits,
        *,
        paused: bool = False,
        by_agent: Mapping[str, BudgetUsage] | None = None,
        own_agent: str = "Parley",
    ) -> None:
        """Show the running (or paused) run's spending against ``limits``; when delegate
        agents spent part of it, the tooltip says who spent what (``own_agent`` names the
        thread's own, ``""`` in ``by_agent``)."""
        self.paused = paused
        if by_agent is None and self._last is not None:
            by_agent = self._by_agent
        self._by_agent = dict(by_agent or {})
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
        who = agent_rows(self._by_agent, own_agent)
        people = "".join(
            f"<tr><td>{html.escape(name)}</td><td>&nbsp;&nbsp;{html.escape(spent)}</td></tr>"
            for name, spent in who
        )
        by = f"<b>By agent</b><table>{people}</table>" if who else ""
        self.setToolTip(f"<b>{head}</b><table>{table}</table>{by}Default limits: Settings › Limits")
        self.setAccessibleDescription(
            f"{head}: "
            + "; ".join(f"{what}: {value}" for what, value in rows)
            + "".join(f"; {name}: {spent}" for name, spent in who)
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
        self._by_agent = {}
        self.bar.hide()
        self.label.setText(f"{tokens:,} tokens" if tokens else "")
        self.setToolTip("Tokens this thread has used" if tokens else "")
        self.setAccessibleDescription(f"This thread has used {tokens:,} tokens" if tokens else "")


def agent_rows(by_agent: Mapping[str, BudgetUsage], own_agent: str) -> list[tuple[str, str]]:
    """Who spent the run's budget, one row per agent, when delegates spent any of it:
    ``("Researcher", "2 model calls, 1 tool call, 340 tokens")``; empty when only the
    thread's own agent did."""
    if not any(name and (u.model_calls or u.tool_calls) for name, u in by_agent.items()):
        return []
    rows = []
    for name, use in sorted(by_agent.items(), key=lambda kv: (kv[0] != "", kv[0])):
        parts = [
            f"{use.model_calls} model call{'s' if use.model_calls != 1 else ''}",
            f"{use.tool_calls} tool call{'s' if use.tool_calls != 1 else ''}",
        ]
        if use.tokens:
            parts.append(f"{use.tokens:,} tokens")
        if use.cost:
            parts.append(f"${use.cost:.4f}")
        rows.append((mark_hidden(name or own_agent)[:80], ", ".join(parts)))
    return rows
