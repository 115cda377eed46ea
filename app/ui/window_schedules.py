"""``WindowSchedules``: the window runs the schedules while it is open (the runner on the
window's event loop, holding the same lock in the data folder as ``parley scheduler``; when
another runner holds it, it says which one runs), lists the runs waiting for you and answers
them, tells the desktop when a run starts waiting, and, with "Keep running in the
background" on, keeps Parley in the system tray when the window is closed (tray menu: Open
Parley, Pause all schedules, Quit)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any

import shiboken6
from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtGui import QAction, QIcon
from PySide6.QtWidgets import QMenu, QSystemTrayIcon, QToolButton, QWidget

from app.core.errors import ParleyError
from app.services.runs import RunService
from app.services.schedules.lock import RunnerTaken
from app.services.schedules.runner import Clock, ScheduleRunner, clock_from
from app.services.schedules.service import RunRecord, ScheduleService
from app.services.schedules.waiting import Waiting, answer_start, waiting_runs
from app.services.settings.store import SettingsStore
from app.ui.desktop_notice import notify_desktop
from app.ui.notifier import Notifier
from app.ui.tasks import spawn

__all__ = ["WindowSchedules"]

ICON = "io.github.parley.Parley"
BADGE_MS = 30_000
"""How often the badge reads again while runs wait (one answered elsewhere goes)."""


def _tray_available() -> bool:
    # a Python function: staticmethod() of Qt's own would read its help text, which sets up
    # PySide's signature support (a tenth of a second) while the window starts
    return QSystemTrayIcon.isSystemTrayAvailable()


class WindowSchedules(QObject):
    """See the module docstring. :meth:`begin` once the window is up; :meth:`end` before
    the workspace closes."""

    waitingChanged = Signal()
    """A run started waiting for you, or one was answered."""
    waitingWanted = Signal()
    """Show the Waiting for you list (a notice's or the tray's action)."""

    tray_available: Callable[[], bool] = staticmethod(_tray_available)
    """Whether the desktop shows tray icons (only then does closing keep Parley running)."""

    def __init__(
        self,
        schedules: ScheduleService,
        runs: RunService,
        settings: SettingsStore,
        make_runner: Callable[[Clock], ScheduleRunner],
        notifier: Notifier,
        window: QWidget,
    ) -> None:
        super().__init__(window)
        self.schedules, self.runs, self.settings = schedules, runs, settings
        self._make_runner = make_runner
        self.read_only = False
        """Nothing can be saved (a rescued copy): no runner starts."""
        self.notifier = notifier
        self.window = window
        self.runner: ScheduleRunner | None = None
        self.taken: RunnerTaken | None = None
        """Who runs the schedules instead, when another runner held the lock."""
        self._stop = asyncio.Event()
        self._serving: asyncio.Task[None] | None = None
        self.quitting = False
        """Quit was chosen: closing the window ends Parley, tray or not."""
        self.menu = QMenu(window)
        self.menu.setObjectName("trayMenu")
        self.open_action = self._action("Open Parley", "trayOpen", self.show_window)
        self.pause_action = self._action(
            "Pause all schedules", "trayPauseAll", lambda: spawn(self.pause_all())
        )
        self.quit_action = self._action("Quit", "trayQuit", self.quit)
        self.tray: QSystemTrayIcon | None = None
        self.badge = QToolButton(window)
        self.badge.setObjectName("waitingBadge")
        self.badge.setAutoRaise(True)
        self.badge.setToolTip("Scheduled runs wait for your answer (View > Waiting for you…)")
        self.badge.hide()
        self.badge.clicked.connect(self.waitingWanted)
        self._badge_timer = QTimer(self)
        self._badge_timer.setInterval(BADGE_MS)
        self._badge_timer.timeout.connect(lambda: spawn(self.refresh_badge()))
        self.waitingChanged.connect(lambda: spawn(self.refresh_badge()))

    def _action(self, text: str, name: str, slot: Callable[[], object]) -> QAction:
        action = QAction(text, self.menu)
        action.setObjectName(name)
        action.triggered.connect(lambda _checked=False: slot())
        self.menu.addAction(action)
        return action

    # Running -------------------------------------------------------------------------

    async def begin(self) -> None:
        """Take the runner's lock and serve the schedules, or note who runs them."""
        if self.runner is not None or self.read_only:
            return
        spawn(self.refresh_badge())
        runner = self._make_runner(clock_from(None))
        taken = await runner.start()
        if taken is not None:
            runner.stop()
            self.taken = taken
            return
        self.runner = runner
        runner.on_waiting = self._on_waiting
        self._serving = asyncio.ensure_future(runner.serve(self._stop))

    async def end(self) -> None:
        """Stop serving (the runs' turns stop with the workspace) and give the lock up."""
        self._badge_timer.stop()
        if self.tray is not None:
            self.tray.hide()
        runner, self.runner = self.runner, None
        if runner is None:
            return
        self._stop.set()
        if self._serving is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._serving
        await self.runs.aclose()
        await runner.settle(within=5)
        runner.stop()

    def who_runs(self) -> str:
        """Which runner runs the schedules, in one sentence."""
        if self.runner is not None:
            return "This window runs the schedules while it is open."
        if self.taken is not None:
            who = f"pid {self.taken.pid}" if self.taken.pid is not None else "another process"
            since = f", started {self.taken.started}" if self.taken.started else ""
            return f"Another runner runs the schedules ({who}{since}); this window does not."
        return "The schedules run while the window is open, or with parley scheduler."

    # Waiting for you -----------------------------------------------------------------

    async def waiting(self) -> list[Waiting]:
        """The scheduled runs waiting for you now."""
        return await waiting_runs(self.schedules, self.runs)

    async def refresh_badge(self) -> None:
        """Show how many runs wait for you beside the thread's title (hidden when none)."""
        try:
            count = len(await self.waiting())
        except ParleyError:
            return
        self.badge.setText(f"{count} waiting for you")
        self.badge.setAccessibleName(f"{count} scheduled runs waiting for you")
        self.badge.setVisible(count > 0)
        if count and not self._badge_timer.isActive():
            self._badge_timer.start()
        elif not count:
            self._badge_timer.stop()

    async def answer(self, item: Waiting, approve: bool) -> None:
        """Approve or deny what ``item`` asks (go on past its limit, or stop there); the run
        goes on, driven by this window's runner when it holds the lock."""
        start = answer_start(self.runs, item, approve)
        if self.runner is not None:
            task: asyncio.Future[Any] = self.runner.answered(item.run, start)
        else:
            task = await start()
        task.add_done_callback(self._run_stopped)
        self.waitingChanged.emit()

    def _run_stopped(self, _task: asyncio.Future[Any]) -> None:
        """An answered run stopped (done, or waiting once more): read again."""
        if shiboken6.isValid(self):
            self.waitingChanged.emit()

    def _on_waiting(self, _run: RunRecord) -> None:
        spawn(self._told_waiting())

    async def _told_waiting(self) -> None:
        self.waitingChanged.emit()
        try:
            items = await self.waiting()
        except ParleyError:
            return
        if not items:
            return
        body = items[-1].asks
        await notify_desktop("A scheduled run waits for you", body, self.tray)
        self.notifier.show(
            f"A scheduled run waits for you: {body}",
            level="warning",
            action=("Show…", self.waitingWanted.emit),
        )

    # In the background ---------------------------------------------------------------

    def keeps_running(self) -> bool:
        """Whether closing the window keeps Parley in the tray now."""
        return (
            not self.quitting and self.settings.current.run_in_background and self.tray_available()
        )

    def hide_to_tray(self) -> None:
        """The window is closed with the setting on: keep running, in the tray."""
        if self.tray is None:
            self.tray = QSystemTrayIcon(QIcon.fromTheme(ICON), self)
            self.tray.setToolTip("Parley: running the schedules")
            self.tray.setContextMenu(self.menu)
            self.tray.activated.connect(lambda _reason: self.show_window())
        self.tray.show()
        self.window.hide()

    def show_window(self) -> None:
        """Open Parley: the window again, in front."""
        self.window.show()
        self.window.raise_()
        self.window.activateWindow()

    async def pause_all(self) -> None:
        """Pause every schedule that is on."""
        paused = 0
        for record in await self.schedules.list():
            if not record.paused:
                await self.schedules.pause(record.id)
                paused += 1
        self.notifier.show(
            f"Paused {paused} schedule{'s' if paused != 1 else ''}; resume them in Settings > "
            "Schedules.",
            timeout_ms=6000,
        )

    def quit(self) -> None:
        """Quit: close the window for good, tray or not."""
        self.quitting = True
        if self.tray is not None:
            self.tray.hide()
        self.window.close()
