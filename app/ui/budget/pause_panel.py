"""``budgetPausePanel``: what the window shows when a run paused at one of its limits.

It sits above the composer, says plainly which limit the next step would go over and what was
spent, and offers two answers: raise the limit for this run (by a suggested amount the user can
change) and continue, or stop here. Nothing is decided by closing or ignoring it: the pause is
saved, and the panel comes back when the thread is opened again, also after a restart.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QDoubleSpinBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from app.core.errors import ParleyError
from app.services.bus import EventBus
from app.services.events import BudgetPaused, RunStatusChanged, WorkspaceEvent
from app.services.runs import RunService
from app.text.hidden_chars import mark_hidden
from app.ui.a11y import announce
from app.ui.budget.text import LIMIT_WORDS, value_text
from app.ui.tasks import spawn

__all__ = ["BudgetPausePanel", "pause_sentence"]


def pause_sentence(event: BudgetPaused) -> tuple[str, str]:
    """(title, body) for a pause, e.g. ("Paused at the model-call limit", "This run has …")."""
    pause = event.pause
    adjective, noun = LIMIT_WORDS.get(pause.limit, (pause.limit, pause.limit))
    title = f"Paused at the {adjective} limit"
    used, value = value_text(pause.limit, pause.used), value_text(pause.limit, pause.value)
    if pause.limit == "max_cost":
        spent = f"This run has spent {used} of its {value}."
    elif pause.limit == "max_tool_calls":
        spent = (
            f"This run has made {used} of its {value} tool calls and now wants "
            f"{value_text(pause.limit, pause.needed)} more."
        )
    else:
        spent = f"This run has used {used} of its {value} {noun}."
    body = f"{spent} Raise the limit to let it go on, or stop here; what it did so far is kept."
    if pause.agent:
        who = mark_hidden(pause.agent)[:80]
        asker = f" (asked by {mark_hidden(pause.asked_by)[:80]})" if pause.asked_by else ""
        body = f"The next step is {who}'s{asker}; the whole turn shares one budget. {body}"
    return title, body


class BudgetPausePanel(QFrame):
    """The answer panel for the open thread's budget pause (hidden when there is none)."""

    answered = Signal(str)
    """Emitted with the thread id once a raise or a stop was sent."""
    paused = Signal(object)
    """Emitted with the :class:`BudgetPaused` the panel shows."""

    def __init__(self, runs: RunService, events: EventBus, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("budgetPausePanel")
        self.setAccessibleName("Budget pause")
        self.runs = runs
        self.thread_id: str | None = None
        self.pending: BudgetPaused | None = None

        self.title = QLabel("", self)
        self.title.setObjectName("budgetPauseTitle")
        self.body = QLabel("", self)
        self.body.setObjectName("budgetPauseText")
        self.body.setWordWrap(True)
        self.body.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.count = QSpinBox(self)
        self.count.setRange(1, 10_000_000)
        self.money = QDoubleSpinBox(self)
        self.money.setRange(0.01, 100_000)
        self.money.setDecimals(2)
        self.money.setPrefix("$")
        self.amount = QStackedWidget(self)
        self.amount.setObjectName("budgetRaiseBy")
        self.amount.addWidget(self.count)
        self.amount.addWidget(self.money)
        for box in (self.count, self.money):
            box.setAccessibleName("Raise the limit by")
            box.valueChanged.connect(self._update_result)
        self.by_label = QLabel("Raise by", self)
        self.by_label.setBuddy(self.count)
        self.result = QLabel("", self)
        self.result.setObjectName("budgetRaiseResult")
        self.raise_button = QPushButton("Raise and continue", self)
        self.raise_button.setObjectName("raiseBudgetButton")
        self.raise_button.setDefault(True)
        self.stop_button = QPushButton("Stop here", self)
        self.stop_button.setObjectName("stopBudgetButton")
        self.error = QLabel("", self)
        self.error.setObjectName("budgetPauseError")
        self.error.setWordWrap(True)
        self.error.hide()
        self.raise_button.clicked.connect(lambda: spawn(self.raise_limit()))
        self.stop_button.clicked.connect(lambda: spawn(self.stop_here()))

        row = QHBoxLayout()
        row.setSpacing(8)
        row.addWidget(self.by_label)
        row.addWidget(self.amount)
        row.addWidget(self.result, 1)
        row.addWidget(self.stop_button)
        row.addWidget(self.raise_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 12, 16, 12)
        layout.setSpacing(8)
        layout.addWidget(self.title)
        layout.addWidget(self.body)
        layout.addLayout(row)
        layout.addWidget(self.error)
        self.hide()
        self._unsubscribe = events.subscribe(self._on_event)

    def close_panel(self) -> None:
        """Stop listening to the event bus (the window is closing)."""
        self._unsubscribe()

    async def show_for(self, thread_id: str) -> None:
        """Show ``thread_id``'s pending budget pause, if it has one (read from the store)."""
        self.thread_id = thread_id
        pending = await self.runs.pending_budget(thread_id)
        if self.thread_id != thread_id:
            return
        if pending and not self.runs.is_running(thread_id):
            self.show_pause(pending[0])
        else:
            self.clear()

    def show_pause(self, event: BudgetPaused) -> None:
        """Ask about ``event``."""
        self.pending = event
        pause = event.pause
        title, body = pause_sentence(event)
        self.title.setText(title)
        self.body.setText(body)
        cost = pause.limit == "max_cost"
        self.amount.setCurrentWidget(self.money if cost else self.count)
        by = pause.suggested_to - pause.value
        if cost:
            self.money.setValue(by)
        else:
            self.count.setValue(int(by))
        self._update_result()
        self.error.hide()
        self._enable(True)
        self.show()
        self.raise_button.setFocus()
        self.paused.emit(event)
        announce(self, f"{title}. {body}")

    def clear(self) -> None:
        """No pause to show."""
        self.pending = None
        self.hide()

    def raise_by(self) -> float:
        """How much the user chose to add to the limit."""
        return (
            self.money.value() if self.amount.currentWidget() is self.money else self.count.value()
        )

    def _update_result(self) -> None:
        if self.pending is None:
            return
        pause = self.pending.pause
        new = pause.value + self.raise_by()
        _adjective, noun = LIMIT_WORDS.get(pause.limit, ("", ""))
        shown = value_text(pause.limit, new)
        self.result.setText(
            f"→ new limit {shown}" + ("" if pause.limit == "max_cost" else f" {noun}")
        )

    def _enable(self, on: bool) -> None:
        for widget in (self.raise_button, self.stop_button, self.amount):
            widget.setEnabled(on)

    async def raise_limit(self) -> bool:
        """Raise the paused limit by the chosen amount and let the run go on."""
        if self.pending is None:
            return False
        return await self._answer(self.pending.pause.value + self.raise_by())

    async def stop_here(self) -> bool:
        """End the run at the limit."""
        return await self._answer(None)

    async def _answer(self, raise_to: float | None) -> bool:
        event = self.pending
        if event is None:
            return False
        self._enable(False)
        try:
            await self.runs.answer_budget(event.thread_id, event.interrupt_id, raise_to)
        except ParleyError as exc:
            self.error.setText(f"Could not go on: {exc}.")
            self.error.show()
            self._enable(True)
            return False
        self.clear()
        self.answered.emit(event.thread_id)
        return True

    def _on_event(self, event: WorkspaceEvent) -> None:
        if isinstance(event, BudgetPaused) and event.thread_id == self.thread_id:
            self.show_pause(event)
        elif (
            isinstance(event, RunStatusChanged)
            and event.thread_id == self.thread_id
            and event.status == "running"
        ):
            self.clear()
