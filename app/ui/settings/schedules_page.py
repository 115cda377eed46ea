"""Settings > Schedules: each schedule (its agent, its prompt's first line, when in words, its
next run, on or paused) with New…, Pause/Resume, Remove and Run now; and its runs (when, which
schedule, how it went with its sentence, tokens), a double click opening a run's thread.

The window runs the schedules while it is open (or ``parley scheduler`` does; the page says
which, in ``schedulesRunner``); this page makes and changes them, lists the runs waiting for
you (:class:`~app.ui.settings.waiting_list.WaitingList`), keeps "Keep running in the
background" (``scheduleBackground``), and reads again every few seconds while shown so a
run's progress appears.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QWidget,
)

from app.core.errors import ParleyError
from app.services.agents import AgentService
from app.services.schedules.service import (
    RunRecord,
    ScheduleRecord,
    ScheduleService,
    moment,
    zone_of,
)
from app.services.schedules.when import in_words
from app.services.settings.preferences import Preferences
from app.text.hidden_chars import mark_hidden
from app.ui.dialogs import ask
from app.ui.memory.describe import when_text
from app.ui.settings._form import page_layout, result_label, rows_table
from app.ui.settings._labels import muted, section
from app.ui.settings.page import SettingsPage
from app.ui.settings.schedule_editor import ScheduleEditor
from app.ui.settings.waiting_list import WaitingList
from app.ui.tasks import spawn
from app.ui.window_schedules import WindowSchedules

__all__ = ["RUN_COLUMNS", "SCHEDULE_COLUMNS", "SchedulesPage", "status_text"]

SCHEDULE_COLUMNS = ["Agent", "Prompt", "When", "Next run", "State"]
RUN_COLUMNS = ["When", "Schedule", "Status", "What happened", "Tokens"]
REFRESH_MS = 5000
"""How often the page reads the schedules and runs again while it is shown."""

_STATUS = {
    "running": "running",
    "done": "done",
    "waiting": "waiting for you",
    "failed": "failed",
    "stopped": "stopped",
}


def status_text(run: RunRecord) -> str:
    """A run's status for people ("waiting for you"; "missed" is said in its note)."""
    return _STATUS.get(run.status, run.status)


def first_line(text: str) -> str:
    """A prompt's first non-empty line."""
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


class SchedulesPage(SettingsPage):
    """The schedules (``scheduleList``) with ``newScheduleButton``, ``schedulePauseButton``
    (Pause or Resume), ``scheduleRemoveButton`` and ``scheduleRunNowButton``; the runs
    (``runsList``), whose double-clicked row asks for its thread (:attr:`threadWanted`)."""

    TITLE = "Schedules"
    OBJECT_NAME = "schedulesPage"

    threadWanted = Signal(str)
    """A run's row was double-clicked: open its thread (the id)."""

    def __init__(
        self,
        schedules: ScheduleService,
        agents: AgentService,
        parent: QWidget | None = None,
        *,
        scheduling: WindowSchedules | None = None,
        preferences: Preferences | None = None,
    ) -> None:
        super().__init__(parent)
        self.schedules, self.agents = schedules, agents
        self.scheduling, self.preferences = scheduling, preferences
        layout = page_layout(
            self,
            self.TITLE,
            "Agents that run a prompt on their own at the times you set, each run in a "
            "thread. The window runs them while it is open, parley scheduler without it; a "
            "call that needs approval waits for you.",
        )
        self.runner_label = QLabel("", self)
        self.runner_label.setObjectName("schedulesRunner")
        self.runner_label.setWordWrap(True)
        self.background = QCheckBox("Keep running in the background to run schedules", self)
        self.background.setObjectName("scheduleBackground")
        self.background.setToolTip(
            "Closing the window keeps Parley in the system tray, where its menu opens the "
            "window, pauses all schedules or quits."
        )
        self.background.toggled.connect(lambda on: spawn(self._keep_background(on)))
        layout.addWidget(self.runner_label)
        layout.addWidget(self.background)
        self.table = rows_table(self, "scheduleList", "Schedules", SCHEDULE_COLUMNS, stretch=1)
        self.empty = muted(QLabel("No schedules yet.", self))
        self.empty.setObjectName("scheduleEmpty")
        self.new = self._button("New…", "newScheduleButton")
        self.pause = self._button("Pause", "schedulePauseButton")
        self.remove = self._button("Remove", "scheduleRemoveButton")
        self.run_now = self._button("Run now", "scheduleRunNowButton")
        row = QHBoxLayout()
        for button in (self.new, self.pause, self.remove, self.run_now):
            row.addWidget(button)
        row.addStretch(1)
        self.runs = rows_table(self, "runsList", "Runs", RUN_COLUMNS, stretch=3)
        self.runs.setToolTip("Double-click a run to open its thread.")
        self.runs.setWordWrap(True)  # a run's sentence wraps in its column
        header = self.runs.horizontalHeader()
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Interactive)
        header.resizeSection(1, 220)  # a long prompt is cut; its tooltip is whole
        self.runs.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.no_runs = muted(QLabel("No runs yet.", self))
        self.no_runs.setObjectName("runsEmpty")
        self.message = result_label(self, "schedulesMessage")
        layout.addWidget(self.table, 1)
        layout.addWidget(self.empty)
        layout.addLayout(row)
        self.waiting: WaitingList | None = None
        if scheduling is not None:
            self.waiting = WaitingList(scheduling, self)
            self.waiting.threadWanted.connect(self.threadWanted)
            self.waiting.answered.connect(lambda: spawn(self.load()))
            layout.addWidget(self.waiting)
        layout.addWidget(section("Runs", self))
        layout.addWidget(self.runs, 1)
        layout.addWidget(self.no_runs)
        layout.addWidget(self.message)
        self.shown: list[ScheduleRecord] = []
        self.shown_runs: list[RunRecord] = []
        self.timer = QTimer(self)
        self.timer.setInterval(REFRESH_MS)
        self.timer.timeout.connect(self._tick)
        self.table.itemSelectionChanged.connect(self._selection)
        self.new.clicked.connect(lambda: spawn(self.new_schedule()))
        self.pause.clicked.connect(lambda: spawn(self.pause_selected()))
        self.remove.clicked.connect(lambda: spawn(self.remove_selected()))
        self.run_now.clicked.connect(lambda: spawn(self.run_selected_now()))
        self.runs.cellDoubleClicked.connect(lambda row, _col: self.open_run(row))

    def _button(self, text: str, name: str) -> QPushButton:
        button = QPushButton(text, self)
        button.setObjectName(name)
        return button

    def _tick(self) -> None:
        if self.isVisible():
            spawn(self.load())
        else:
            self.timer.stop()

    # Filling -------------------------------------------------------------------------

    async def _keep_background(self, on: bool) -> None:
        if self.preferences is not None:
            await self.preferences.set_run_in_background(on)

    async def load(self) -> None:
        """List the schedules and their newest runs, who runs them and what waits for you."""
        if self.scheduling is not None:
            self.runner_label.setText(self.scheduling.who_runs())
        self.runner_label.setVisible(self.scheduling is not None)
        self.background.setVisible(self.preferences is not None)
        if self.preferences is not None:
            self.background.blockSignals(True)
            self.background.setChecked(self.preferences.run_in_background())
            self.background.blockSignals(False)
        if self.waiting is not None:
            await self.waiting.load()
        try:
            records = await self.schedules.list()
            runs = await self.schedules.runs()
            names = {r.agent_id: await self.schedules.agent_name(r.agent_id) for r in records}
        except ParleyError as exc:
            self.message.setText(f"The schedules could not be read: {exc}")
            return
        chosen = self.selected()
        now = datetime.now(UTC)
        self.shown = records
        self.table.setRowCount(len(records))
        for row, record in enumerate(records):
            self._fill(self.table, row, self._schedule_cells(record, names, now))
            if chosen is not None and record.id == chosen.id:
                self.table.selectRow(row)
        by_id = {r.id: r for r in records}
        self.shown_runs = runs
        self.runs.setRowCount(len(runs))
        for row, run in enumerate(runs):
            self._fill(self.runs, row, self._run_cells(run, by_id.get(run.schedule_id), names))
        self.runs.resizeRowsToContents()
        self.table.setVisible(bool(records))
        self.empty.setVisible(not records)
        self.runs.setVisible(bool(runs))
        self.no_runs.setVisible(not runs)
        self._selection()
        if self.isVisible() and not self.timer.isActive():
            self.timer.start()

    @staticmethod
    def _fill(table: QTableWidget, row: int, cells: tuple[str, ...]) -> None:
        for col, text in enumerate(cells):
            item = QTableWidgetItem(text)
            item.setToolTip(text)
            table.setItem(row, col, item)

    def _schedule_cells(
        self, record: ScheduleRecord, names: dict[str, str], now: datetime
    ) -> tuple[str, ...]:
        try:
            said = self.schedules.rule(record).words
        except ParleyError:
            said = record.rule
        due = record.next_due
        upcoming = (
            "—" if record.paused or due is None else in_words(moment(due), zone_of(record), now)
        )
        state = "paused" if record.paused else "on"
        if record.run_now:
            state += ", asked to run now"
        return (
            mark_hidden(names.get(record.agent_id, "")),
            mark_hidden(first_line(record.prompt)),
            said,
            upcoming,
            state,
        )

    @staticmethod
    def _run_cells(
        run: RunRecord, record: ScheduleRecord | None, names: dict[str, str]
    ) -> tuple[str, ...]:
        if record is None:
            which = "(a removed schedule)"
        else:
            which = f"{names.get(record.agent_id, '')}: {first_line(record.prompt)}"
        said = f"{run.sentence} ({run.note})" if run.sentence and run.note else run.sentence
        said = said or run.note
        clock = time.strftime("%H:%M", time.localtime(run.started_at))
        started = f"{when_text(run.started_at, day=True)} {clock}"
        return (
            started,
            mark_hidden(which),
            status_text(run),
            said,
            f"{run.tokens:,}" if run.tokens else "",
        )

    def selected(self) -> ScheduleRecord | None:
        """The schedule of the selected row."""
        rows = {i.row() for i in self.table.selectedIndexes()}
        return self.shown[min(rows)] if rows and min(rows) < len(self.shown) else None

    def _selection(self) -> None:
        record = self.selected()
        for button in (self.pause, self.remove, self.run_now):
            button.setEnabled(record is not None)
        self.pause.setText("Resume" if record is not None and record.paused else "Pause")

    def open_run(self, row: int) -> None:
        """Open the thread of the run in ``row``."""
        if 0 <= row < len(self.shown_runs) and (thread := self.shown_runs[row].thread_id):
            self.threadWanted.emit(thread)

    # Changing ------------------------------------------------------------------------

    async def new_schedule(self) -> None:
        """Open the editor; a schedule saved there is listed."""
        editor = ScheduleEditor(self.schedules, await self.agents.list(), self)
        try:
            if await ask(editor) and editor.made is not None:
                made = editor.made
                self.message.setText(f"Saved. {self.schedules.next_runs(made, datetime.now(UTC))}")
                await self.load()
        finally:
            editor.deleteLater()

    async def pause_selected(self) -> None:
        """Pause the selected schedule, or set it going again."""
        record = self.selected()
        if record is None:
            return
        if record.paused:
            changed = await self.schedules.resume(record.id)
            self.message.setText(f"Resumed. {self.schedules.next_runs(changed, datetime.now(UTC))}")
        else:
            await self.schedules.pause(record.id)
            self.message.setText("Paused: it does not run until you resume it.")
        await self.load()

    async def remove_selected(self) -> None:
        """Remove the selected schedule (its runs and their threads stay)."""
        record = self.selected()
        if record is None:
            return
        await self.schedules.remove(record.id)
        self.message.setText(
            f"Removed “{mark_hidden(first_line(record.prompt))}”; its runs' threads stay."
        )
        await self.load()

    async def run_selected_now(self) -> None:
        """Ask the scheduler to run the selected schedule at its next look."""
        record = self.selected()
        if record is None:
            return
        await self.schedules.ask_run_now(record.id)
        if self.scheduling is not None and self.scheduling.runner is not None:
            self.message.setText("Running it now; its run shows under Runs.")
        else:
            self.message.setText(
                "Asked to run now: the runner of the schedules runs it at its next look "
                "(within seconds while it runs)."
            )
        await self.load()
