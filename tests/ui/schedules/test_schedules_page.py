"""Settings > Schedules in the real window, opened from View > Schedules…: the editor says the
next three run times as the time is typed, or why it cannot be read; Save lists the schedule;
Pause changes its state; Run now, once the runner has run it, shows the run in the Runs list
(the page reads again while shown), whose double click opens the run's thread; Remove keeps
the run and its thread."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QTableWidget,
)

from app.ui.actions import ActionId
from app.ui.settings.page import PageId
from app.ui.settings.schedules_page import RUN_COLUMNS, SCHEDULE_COLUMNS
from tests.ui.harness import (
    Models,
    close_test_window,
    find,
    open_test_window,
    type_text,
    wait_until,
)

USAGE = {"prompt_tokens": 90, "completion_tokens": 30, "total_tokens": 120}
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday")


def _rows(table: QTableWidget, columns: list[str]) -> list[dict[str, str]]:
    return [
        {name: table.item(row, col).text() for col, name in enumerate(columns)}
        for row in range(table.rowCount())
    ]


async def _page(window: Any) -> Any:
    window.findChild(QAction, ActionId.VIEW_SCHEDULES).trigger()
    page = window.open_settings().page(PageId.SCHEDULES)
    await wait_until(page.isVisible, what="the schedules page")
    await page.load()
    return page


async def _editor(page: Any) -> QDialog:
    find(page, QPushButton, "newScheduleButton").click()
    editor: QDialog = await wait_until(
        lambda: (e := page.findChild(QDialog, "scheduleEditor")) and e.isVisible() and e,
        what="the editor",
    )
    return editor


async def test_the_editor_says_the_next_runs_or_why_not(tmp_path: Path) -> None:
    window = await open_test_window(tmp_path, Models({"scripted:a": []}))
    try:
        editor = await _editor(await _page(window))
        when = find(editor, QLineEdit, "scheduleWhen")
        hint = find(editor, QLabel, "scheduleWhenHint")
        type_text(when, "weekdays 18:30")
        said = hint.text()
        assert said.startswith("Next runs: ") and said.count(" at 18:30 ") == 3
        assert [day for day in WEEKDAYS if day in said] and "Saturday" not in said
        assert "Sunday" not in said
        assert hint.property("problem") is False
        when.clear()
        type_text(when, "30s")
        assert hint.text() == (
            '"30s" would run more often than once a minute; a schedule runs at most once a '
            'minute ("1m" or more).'
        )
        assert hint.property("problem") is True
        find(editor, QPlainTextEdit, "schedulePrompt").setPlainText("Too often")
        find(editor, QPushButton, "scheduleSaveButton").click()  # said once, under the time
        await wait_until(when.hasFocus, what="the time to be asked again")
        assert not find(editor, QLabel, "scheduleProblem").isVisible()
        find(editor, QPlainTextEdit, "schedulePrompt").setPlainText("")
        when.clear()
        type_text(when, "0 8 * * 1-5")
        assert hint.text().count(" at 08:00 ") == 3
        find(editor, QPushButton, "scheduleSaveButton").click()  # no prompt yet
        problem = find(editor, QLabel, "scheduleProblem")
        await wait_until(problem.isVisible, what="the refusal")
        assert problem.text() == "Not saved: The schedule has nothing to say: its prompt is empty."
        assert editor.isVisible() and await window.workspace.schedules.list() == []
        editor.reject()
    finally:
        await close_test_window(window)


async def test_a_schedule_is_saved_paused_run_and_its_thread_opened(tmp_path: Path) -> None:
    window = await open_test_window(
        tmp_path, Models({"scripted:a": [{"text": "Nothing new today.", "usage": USAGE}]})
    )
    ws = window.workspace
    runner = ws.schedule_runner(lambda: datetime.now().astimezone())
    try:
        page = await _page(window)
        assert find(page, QLabel, "scheduleEmpty").isVisible()
        editor = await _editor(page)
        assert find(editor, QComboBox, "scheduleAgent").currentText() == "Parley"
        find(editor, QPlainTextEdit, "schedulePrompt").setPlainText("Check the news\nBriefly.")
        type_text(find(editor, QLineEdit, "scheduleWhen"), "weekdays 18:30")
        find(editor, QSpinBox, "scheduleMaxToolCalls").setValue(3)
        find(editor, QPushButton, "scheduleSaveButton").click()
        table = find(page, QTableWidget, "scheduleList")
        await wait_until(lambda: table.isVisible() and table.rowCount() == 1, what="the row")
        (row,) = _rows(table, SCHEDULE_COLUMNS)
        assert row["Agent"] == "Parley" and row["Prompt"] == "Check the news"
        assert row["When"] == "weekdays at 18:30" and row["State"] == "on"
        assert row["Next run"].split()[0] in WEEKDAYS and " at 18:30 " in row["Next run"]
        (made,) = await ws.schedules.list()
        assert made.limits.max_tool_calls == 3 and made.limits.max_model_calls is None

        table.selectRow(0)
        find(page, QPushButton, "schedulePauseButton").click()
        await wait_until(
            lambda: _rows(table, SCHEDULE_COLUMNS)[0]["State"] == "paused", what="paused"
        )
        assert (await ws.schedules.get(made.id)).paused
        assert _rows(table, SCHEDULE_COLUMNS)[0]["Next run"] == "—"
        assert find(page, QPushButton, "schedulePauseButton").text() == "Resume"

        find(page, QPushButton, "scheduleRunNowButton").click()
        await wait_until(
            lambda: (
                (ws.schedules is not None)
                and "asked to run now" in _rows(table, SCHEDULE_COLUMNS)[0]["State"]
            ),
            what="run now",
        )
        assert await runner.start() is None
        await runner.look()
        (run,) = await runner.wait()
        page.timer.setInterval(100)  # the page reads again while shown: no reload asked here
        runs = find(page, QTableWidget, "runsList")
        await wait_until(lambda: runs.isVisible() and runs.rowCount() == 1, what="the run")
        (shown,) = _rows(runs, RUN_COLUMNS)
        assert shown["Schedule"] == "Parley: Check the news"
        assert (shown["Status"], shown["What happened"], shown["Tokens"]) == (
            "done",
            "run now",
            "120",
        )
        runs.cellDoubleClicked.emit(0, 0)
        await wait_until(lambda: window.chat_vm.thread_id == run.thread_id, what="its thread")

        page = await _page(window)
        table = find(page, QTableWidget, "scheduleList")
        table.selectRow(0)
        find(page, QPushButton, "scheduleRemoveButton").click()
        await wait_until(lambda: not table.isVisible(), what="the schedule to go")
        assert await ws.schedules.list() == []
        runs = find(page, QTableWidget, "runsList")
        assert _rows(runs, RUN_COLUMNS)[0]["Schedule"] == "(a removed schedule)"
        assert await ws.threads.get(run.thread_id or "")  # its thread stays
    finally:
        runner.stop()
        await close_test_window(window)
