"""Settings > Data in the real window: Back up now lists the backup with its size and
threads, a damaged one is marked and cannot be restored, and Restore… (after asking) brings
back a thread deleted since, in a window reopened on the backup."""

from __future__ import annotations

from pathlib import Path

import shiboken6
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QLabel, QMessageBox, QPushButton, QTableWidget

from app.store.backups import backups_folder
from app.store.paths import database_path
from app.ui.app import reopen_restored
from app.ui.settings.data_page import DataPage
from app.ui.settings.page import PageId
from app.ui.tasks import drain
from app.ui.window import MainWindow
from tests.ui.data.test_data_menu import opened
from tests.ui.harness import Models, close_test_window, find, open_test_window, wait_until


async def _titles(window: MainWindow) -> list[str]:
    return sorted(t.thread.title for t in await window.workspace.threads.list_all())


async def test_back_up_now_then_restore_brings_back_a_deleted_thread(tmp_path: Path) -> None:
    models = Models({"scripted:a": [{"text": "Pack the tent."}, {"text": "Noted."}]})
    window = await open_test_window(tmp_path, models)
    reopened: MainWindow | None = None
    try:
        ws = window.workspace
        trip = await ws.threads.create(title="Holiday plans")
        await (await ws.runs.send(trip.id, "What should I pack?"))
        at_backup = await _titles(window)
        assert "Holiday plans" in at_backup
        dialog = window.open_settings(PageId.DATA)
        page = dialog.page(PageId.DATA)
        assert isinstance(page, DataPage)
        table = find(page, QTableWidget, "backupsTable")
        await wait_until(lambda: page.isVisible(), what="the Data page")
        assert find(page, QLabel, "backupsEmpty").isVisible()

        QTest.mouseClick(find(page, QPushButton, "backupNowButton"), Qt.MouseButton.LeftButton)
        await wait_until(lambda: table.rowCount() == 1, what="the backup to be listed")
        cells = [table.item(0, c).text() for c in range(table.columnCount())]
        assert cells[1] == "By hand" and cells[3] == str(len(at_backup))
        assert find(page, QLabel, "backupSpace").text().startswith("1 backup takes ")
        assert str(backups_folder(database_path(tmp_path))) in page.space.text()
        restore = find(page, QPushButton, "restoreBackupButton")
        assert not restore.isEnabled()  # nothing chosen yet

        # after the backup: the thread is deleted and another one written
        await ws.threads.delete(trip.id)
        later = await ws.threads.create(title="Written after the backup")
        await (await ws.runs.send(later.id, "Remember this"))

        # a damaged backup is listed as damaged and cannot be restored
        broken = backups_folder(database_path(tmp_path)) / "parley-v5-20260101-080000-daily.db"
        broken.write_bytes(b"SQLite format 3\x00" + b"\xff" * 8000)
        await page.load()
        assert table.rowCount() == 2
        damaged_row = next(r for r in range(2) if "damaged" in table.item(r, 3).text())
        table.selectRow(damaged_row)
        assert not restore.isEnabled()

        table.selectRow(1 - damaged_row)
        assert restore.isEnabled()
        chosen = page.selected()
        assert chosen is not None
        requested: list[Path] = []
        window.restore_requested.connect(requested.append)
        QTest.mouseClick(restore, Qt.MouseButton.LeftButton)
        box = await opened(page, QMessageBox, "restoreBackupDialog")
        assert isinstance(box, QMessageBox)
        assert f"({len(at_backup)} threads)?" in box.text()
        assert "nothing is deleted" in box.informativeText()
        box.button(QMessageBox.StandardButton.Cancel).click()
        # the click's question has been answered once its task is done: a restore it asked
        # for would have been asked for by then
        await drain()
        assert requested == []  # Cancel restores nothing

        QTest.mouseClick(restore, Qt.MouseButton.LeftButton)
        box = await opened(page, QMessageBox, "restoreBackupDialog")
        find(box, QPushButton, "confirmRestoreButton").click()
        await drain()
        assert requested == [chosen.path]
        backup = requested[0]

        reopened = await reopen_restored(window, backup, lambda: open_test_window(tmp_path, models))
        assert reopened is not None
        assert await _titles(reopened) == at_backup
        sidebar = reopened.sidebar.list.model()
        shown = [str(sidebar.index(r, 0).data()) for r in range(sidebar.rowCount())]
        assert any("Holiday plans" in text for text in shown), shown
        assert "Restored the backup" in reopened.notice.label.text()
        assert "was kept as" in reopened.notice.label.text()
    finally:
        for w in (reopened, window):  # the window the restore closed is gone
            if w is not None and shiboken6.isValid(w) and w.isVisible():
                await close_test_window(w)
