"""The window as a runner of schedules: a run stopped at its budget waits in the Waiting for
you list after the window is closed and opened again, and goes on when approved; the editor
keeps a run's limits for tokens and cost; "Keep running in the background" is kept, closing
the window with it on keeps Parley in the tray (when the desktop has one), whose menu pauses
all schedules, opens the window and quits."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDoubleSpinBox,
    QLabel,
    QLineEdit,
    QListWidget,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QTableWidget,
)

from app.core.budget import BudgetLimits
from app.services.settings.file import load_settings
from app.ui.actions import ActionId
from app.ui.app import close_window
from app.ui.settings.page import PageId
from tests.ui.approval_harness import Recorder, open_tool_window
from tests.ui.harness import find, type_text, wait_until


async def _page(window: Any) -> Any:
    window.findChild(QAction, ActionId.VIEW_SCHEDULES).trigger()
    page = window.open_settings().page(PageId.SCHEDULES)
    await wait_until(page.isVisible, what="the schedules page")
    await page.load()
    return page


async def test_a_run_at_its_budget_waits_across_a_restart_and_goes_on(tmp_path: Path) -> None:
    data = tmp_path / "data"
    first = Recorder([{"tool_calls": [{"name": "no_such_tool", "args": {}, "id": "c1"}]}])
    window = await open_tool_window(data, first)
    try:
        await window.schedules_part.begin()
        made = await window.workspace.schedules.add(
            "Parley", "Tidy up", every="day 08:00", limits=BudgetLimits(max_model_calls=1)
        )
        await window.workspace.schedules.ask_run_now(made.id)
        told = find(window, QLabel, "noticeText")
        await wait_until(lambda: "waits for you" in told.text(), what="the run to wait")
        (run,) = await window.workspace.schedules.runs()
        assert run.status == "waiting"
    finally:
        await close_window(window)

    again = await open_tool_window(data, Recorder([{"text": "All tidy."}]))
    try:
        await again.schedules_part.begin()
        find(again, QAction, ActionId.VIEW_WAITING).trigger()  # View > Waiting for you…
        page = again.open_settings().page(PageId.SCHEDULES)
        await wait_until(page.isVisible, what="the schedules page")
        waiting = find(page, QListWidget, "waitingList")
        await wait_until(lambda: waiting.count() == 1, what="the waiting run")
        assert waiting.item(0).text().startswith("Parley stopped at a limit: ")
        assert "model-call budget (1)" in waiting.item(0).text()
        find(page, QPushButton, "waitingApproveButton").click()
        await wait_until(lambda: waiting.count() == 0, what="the answer")

        for _ in range(200):
            (run,) = await again.workspace.schedules.runs()
            if run.status == "done":
                break
            await asyncio.sleep(0.05)
        assert run.status == "done"
        texts = [
            m.text()
            for m in (await again.workspace.threads.read_messages(run.thread_id or "")).messages
        ]
        assert texts[-1] == "All tidy."
    finally:
        await close_window(again)


async def test_the_editor_keeps_limits_for_tokens_and_cost(tmp_path: Path) -> None:
    window = await open_tool_window(tmp_path / "data", Recorder([]))
    try:
        page = await _page(window)
        find(page, QPushButton, "newScheduleButton").click()
        editor: QDialog = await wait_until(
            lambda: (e := page.findChild(QDialog, "scheduleEditor")) and e.isVisible() and e,
            what="the editor",
        )
        find(editor, QPlainTextEdit, "schedulePrompt").setPlainText("Summarise the inbox")
        type_text(find(editor, QLineEdit, "scheduleWhen"), "day 07:30")
        find(editor, QSpinBox, "scheduleMaxTokens").setValue(5000)
        find(editor, QDoubleSpinBox, "scheduleMaxCost").setValue(0.25)
        find(editor, QPushButton, "scheduleSaveButton").click()
        table = find(page, QTableWidget, "scheduleList")
        await wait_until(lambda: table.rowCount() == 1, what="the schedule saved")
        (made,) = await window.workspace.schedules.list()
        assert made.limits == BudgetLimits(max_tokens=5000, max_cost=0.25)
    finally:
        await close_window(window)


async def test_keep_running_in_the_background_is_kept_and_needs_a_tray(tmp_path: Path) -> None:
    window = await open_tool_window(tmp_path / "data", Recorder([]))
    closed: list[bool] = []
    window.closed.connect(lambda: closed.append(True))
    try:
        page = await _page(window)
        box = find(page, QCheckBox, "scheduleBackground")
        assert box.text() == "Keep running in the background to run schedules"
        assert not box.isChecked()
        box.setChecked(True)
        await wait_until(
            lambda: load_settings(tmp_path / "data").run_in_background, what="the setting kept"
        )
        window.schedules_part.tray_available = lambda: False  # offscreen: no tray here
        assert not window.schedules_part.keeps_running()
        window._settings_dialog.close()
        window.close()
        assert closed == [True]  # without a tray, closing closes
    finally:
        await close_window(window)


async def test_with_a_tray_closing_keeps_parley_and_its_menu_acts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    window = await open_tool_window(tmp_path / "data", Recorder([]))
    closed: list[bool] = []
    window.closed.connect(lambda: closed.append(True))
    part = window.schedules_part
    try:
        await window.workspace.preferences.set_run_in_background(True)
        part.tray_available = lambda: True
        for n in range(2):
            await window.workspace.schedules.add("Parley", f"Job {n}", every="2h")
        window.close()
        assert closed == [] and not window.isVisible()  # kept, in the tray
        menu = part.menu
        assert [a.text() for a in menu.actions()] == [
            "Open Parley",
            "Pause all schedules",
            "Quit",
        ]
        find(menu, QAction, "trayPauseAll").trigger()
        told = find(window, QLabel, "noticeText")
        await wait_until(lambda: told.text().startswith("Paused "), what="the pause")
        assert told.text() == "Paused 2 schedules; resume them in Settings > Schedules."
        assert all(r.paused for r in await window.workspace.schedules.list())
        find(menu, QAction, "trayOpen").trigger()
        assert window.isVisible()
        find(menu, QAction, "trayQuit").trigger()
        assert closed == [True]
    finally:
        await close_window(window)
