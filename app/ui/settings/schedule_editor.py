"""``scheduleEditor``: a new schedule's agent, prompt, when (its next three run times said as
you type, or the one sentence on what cannot be read) and limits for each run; Save keeps it
through the schedules service and says why when it cannot."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from app.core.budget import BudgetLimits
from app.core.errors import ParleyError, UserError
from app.services.agents import Agent
from app.services.schedules.service import ScheduleRecord, ScheduleService
from app.services.schedules.when import ScheduleRule, next_runs_in_words, parse_cron, parse_when
from app.text.hidden_chars import mark_hidden
from app.ui.settings._labels import muted
from app.ui.tasks import spawn

__all__ = ["ScheduleEditor", "is_cron", "when_preview"]

WHEN_HINT = 'As "weekdays 18:30", "day 08:00", "monday 09:00", "2h", or cron "0 8 * * 1-5"'


def is_cron(text: str) -> bool:
    """Whether ``text`` is written as a cron expression (five fields) rather than a WHEN."""
    return len(text.split()) == 5


def _rule(text: str) -> ScheduleRule:
    return parse_cron(text) if is_cron(text) else parse_when(text)


def when_preview(text: str, zone: ZoneInfo, now: datetime) -> tuple[str, bool]:
    """What the editor says under the time: the next three runs in words, or the sentence
    on what cannot be read; and whether it is that sentence."""
    if not text.strip():
        return "", False
    try:
        rule = _rule(text)
    except UserError as exc:
        return str(exc), True
    return next_runs_in_words(rule, now, zone, now), False


class ScheduleEditor(QDialog):
    """The editor of a new schedule (object name ``scheduleEditor``): ``scheduleAgent``,
    ``schedulePrompt``, ``scheduleWhen`` with ``scheduleWhenHint`` under it,
    ``scheduleLimits`` (``scheduleMaxToolCalls``, ``scheduleMaxModelCalls``,
    ``scheduleMaxTokens``, ``scheduleMaxCost``; 0 keeps the default limits) and
    ``scheduleSaveButton``. Accepted once the schedule is kept (:attr:`made`)."""

    def __init__(
        self, schedules: ScheduleService, agents: list[Agent], parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.schedules = schedules
        self.made: ScheduleRecord | None = None
        self.setObjectName("scheduleEditor")
        self.setWindowTitle("New schedule")
        self.agent = QComboBox(self)
        self.agent.setObjectName("scheduleAgent")
        self.agent.setAccessibleName("Agent")
        for agent in agents:
            self.agent.addItem(mark_hidden(agent.name), agent.name)
        self.prompt = QPlainTextEdit(self)
        self.prompt.setObjectName("schedulePrompt")
        self.prompt.setAccessibleName("Prompt")
        self.prompt.setPlaceholderText("What the agent is asked each run")
        self.prompt.setTabChangesFocus(True)
        self.prompt.setMinimumHeight(96)
        self.when = QLineEdit(self)
        self.when.setObjectName("scheduleWhen")
        self.when.setAccessibleName("When")
        self.when.setPlaceholderText(WHEN_HINT)
        self.hint = muted(QLabel("", self))
        self.hint.setObjectName("scheduleWhenHint")
        self.hint.setWordWrap(True)
        self.limits = QWidget(self)
        self.limits.setObjectName("scheduleLimits")
        self.tool_calls = self._limit("scheduleMaxToolCalls", "Tool calls per run")
        self.model_calls = self._limit("scheduleMaxModelCalls", "Model calls per run")
        self.tokens = self._limit("scheduleMaxTokens", "Tokens per run", 100_000_000)
        self.cost = QDoubleSpinBox(self.limits)
        self.cost.setObjectName("scheduleMaxCost")
        self.cost.setAccessibleName("Cost per run, in dollars")
        self.cost.setRange(0, 10_000)
        self.cost.setDecimals(2)
        self.cost.setPrefix("$")
        self.cost.setSpecialValueText("default")
        self.cost.setMinimumWidth(96)
        row = QHBoxLayout(self.limits)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(QLabel("Tool calls", self.limits))
        row.addWidget(self.tool_calls)
        row.addSpacing(16)
        row.addWidget(QLabel("Model calls", self.limits))
        row.addWidget(self.model_calls)
        row.addSpacing(16)
        row.addWidget(QLabel("Tokens", self.limits))
        row.addWidget(self.tokens)
        row.addSpacing(16)
        row.addWidget(QLabel("Cost", self.limits))
        row.addWidget(self.cost)
        row.addStretch(1)
        form = QFormLayout()
        form.setHorizontalSpacing(16)
        form.addRow("Agent", self.agent)
        form.addRow("Prompt", self.prompt)
        form.addRow("When", self.when)
        form.addRow("", self.hint)
        form.addRow("Each run at most", self.limits)
        self.problem = QLabel("", self)
        self.problem.setObjectName("scheduleProblem")
        self.problem.setProperty("problem", True)
        self.problem.setWordWrap(True)
        self.problem.hide()
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel, self)
        self.save_button = buttons.addButton("Save", QDialogButtonBox.ButtonRole.AcceptRole)
        self.save_button.setObjectName("scheduleSaveButton")
        self.save_button.setDefault(True)
        buttons.rejected.connect(self.reject)
        self.save_button.clicked.connect(lambda: spawn(self.save()))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 16, 16, 12)
        layout.setSpacing(8)
        layout.addLayout(form)
        layout.addWidget(self.problem)
        layout.addWidget(buttons)
        self.when.textChanged.connect(self._said)
        self.resize(720, 380)

    def _limit(self, name: str, accessible: str, most: int = 100_000) -> QSpinBox:
        box = QSpinBox(self.limits)
        box.setObjectName(name)
        box.setAccessibleName(accessible)
        box.setRange(0, most)
        box.setSpecialValueText("default")
        box.setMinimumWidth(96)
        return box

    def _said(self, text: str) -> None:
        said, wrong = when_preview(text, self.schedules.zone, datetime.now(UTC))
        self.hint.setText(said)
        if self.hint.property("problem") != wrong:
            self.hint.setProperty("problem", wrong)
            self.hint.style().unpolish(self.hint)
            self.hint.style().polish(self.hint)

    def limits_set(self) -> BudgetLimits:
        """The limits written (0: the default limits apply)."""
        return BudgetLimits(
            max_tool_calls=self.tool_calls.value() or None,
            max_model_calls=self.model_calls.value() or None,
            max_tokens=self.tokens.value() or None,
            max_cost=self.cost.value() or None,
        )

    async def save(self) -> None:
        """Keep the schedule and close, or say in one sentence why it is not kept."""
        when = self.when.text().strip()
        cron = is_cron(when)
        try:
            self.made = await self.schedules.add(
                str(self.agent.currentData() or ""),
                self.prompt.toPlainText(),
                every=None if cron else when,
                cron=when if cron else None,
                limits=self.limits_set(),
            )
        except ParleyError as exc:
            if str(exc) == self.hint.text():  # said under the time already
                self.problem.hide()
                self.when.setFocus()
                return
            self.problem.setText(f"Not saved: {exc}")
            self.problem.show()
            return
        self.accept()
