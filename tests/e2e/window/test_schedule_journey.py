"""A schedule's whole journey in the real window, which runs the schedules while it is open:
made in the editor, run now, seen in Runs, its waiting approval answered from the Waiting
for you list (the run goes on and writes the file), and its thread opened with the answer;
the thread is marked as scheduled in the sidebar. A second window on the same data folder
says which runner runs the schedules."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QDialog,
    QLabel,
    QLineEdit,
    QListWidget,
    QPlainTextEdit,
    QPushButton,
    QTableWidget,
    QToolButton,
)

from app.ui.actions import ActionId
from app.ui.app import close_window
from app.ui.settings.page import PageId
from app.ui.settings.schedules_page import RUN_COLUMNS
from app.ui.sidebar.model import RowRole
from tests.ui.approval_harness import Recorder, open_tool_window
from tests.ui.harness import find, type_text, wait_until


def _runs(table: QTableWidget) -> list[dict[str, str]]:
    return [
        {name: table.item(row, col).text() for col, name in enumerate(RUN_COLUMNS)}
        for row in range(table.rowCount())
    ]


async def _page(window: Any) -> Any:
    window.findChild(QAction, ActionId.VIEW_SCHEDULES).trigger()
    page = window.open_settings().page(PageId.SCHEDULES)
    await wait_until(page.isVisible, what="the schedules page")
    await page.load()
    page.timer.setInterval(100)
    return page


async def test_a_schedule_made_run_and_its_approval_answered_from_the_waiting_list(
    tmp_path: Path,
) -> None:
    note = tmp_path / "standup.txt"
    call = {"name": "write_note", "args": {"path": str(note), "content": "Standup at 10"}}
    model = Recorder([{"tool_calls": [{**call, "id": "c1"}]}, {"text": "Wrote the standup note."}])
    window = await open_tool_window(tmp_path / "data", model)
    try:
        await window.schedules_part.begin()
        page = await _page(window)
        assert find(page, QLabel, "schedulesRunner").text() == (
            "This window runs the schedules while it is open."
        )
        find(page, QPushButton, "newScheduleButton").click()
        editor: QDialog = await wait_until(
            lambda: (e := page.findChild(QDialog, "scheduleEditor")) and e.isVisible() and e,
            what="the editor",
        )
        find(editor, QPlainTextEdit, "schedulePrompt").setPlainText("Write the standup note")
        type_text(find(editor, QLineEdit, "scheduleWhen"), "weekdays 09:00")
        find(editor, QPushButton, "scheduleSaveButton").click()
        table = find(page, QTableWidget, "scheduleList")
        await wait_until(lambda: table.rowCount() == 1 and table.isVisible(), what="the row")
        table.selectRow(0)
        find(page, QPushButton, "scheduleRunNowButton").click()

        runs = find(page, QTableWidget, "runsList")
        await wait_until(
            lambda: runs.rowCount() == 1 and _runs(runs)[0]["Status"] == "waiting for you",
            what="the run waiting in Runs",
        )
        assert _runs(runs)[0]["Schedule"] == "Parley: Write the standup note"
        waiting = find(page, QListWidget, "waitingList")
        await wait_until(lambda: waiting.count() == 1, what="the Waiting for you list")
        line = waiting.item(0).text()
        assert line.startswith(f'Parley asks to run write_note (path: "{note}", content: ')
        assert line.endswith('") — schedule “Write the standup note”')
        assert not note.exists()
        told = find(window, QLabel, "noticeText")
        await wait_until(lambda: "waits for you" in told.text(), what="the notice")
        assert told.text() == f"A scheduled run waits for you: {line.split(' — ')[0]}."

        badge = find(window, QToolButton, "waitingBadge")
        await wait_until(badge.isVisible, what="the badge")
        assert badge.text() == "1 waiting for you"

        waiting.setCurrentRow(0)
        find(page, QPushButton, "waitingApproveButton").click()
        await wait_until(note.exists, what="the approved call to run")
        await wait_until(
            lambda: runs.rowCount() == 1 and _runs(runs)[0]["Status"] == "done",
            what="the run to be done",
        )
        assert note.read_text() == "Standup at 10\n"
        await wait_until(lambda: waiting.count() == 0, what="the list to empty")
        await wait_until(lambda: not badge.isVisible(), what="the badge to go")
        assert find(page, QLabel, "waitingEmpty").text() == "Nothing waits for you."

        runs.cellDoubleClicked.emit(0, 0)
        (run,) = await window.workspace.schedules.runs()
        await wait_until(lambda: window.chat_vm.thread_id == run.thread_id, what="its thread")
        chat = window.chat_vm.model
        await wait_until(
            lambda: chat.last("assistant", with_text=True) is not None, what="the answer"
        )
        assert chat.last("assistant", with_text=True).text() == "Wrote the standup note."
        await window.threads_vm.refresh()
        sidebar = window.threads_vm.model
        index = sidebar.index(sidebar.row_of(run.thread_id or "") or 0, 0)
        assert index.data(RowRole).thread_id == run.thread_id
        assert ", scheduled" in index.data(Qt.ItemDataRole.AccessibleTextRole)

        second = await open_tool_window(tmp_path / "data", Recorder([]))
        try:
            await second.schedules_part.begin()
            other = await _page(second)
            said = find(other, QLabel, "schedulesRunner").text()
            assert said.startswith("Another runner runs the schedules (pid ")
            assert said.endswith("; this window does not.")
        finally:
            await close_window(second)
    finally:
        await close_window(window)
