"""The window and a database holding what Parley does not make: foreign triggers found at
start are removed and the window says so; Settings > Data marks a backup carrying them as
not restorable, and lists the database a restore replaced."""

from __future__ import annotations

import asyncio
from pathlib import Path

from PySide6.QtWidgets import QPushButton, QTableWidget

from app.services.data.backups import BackupService
from app.store import Store
from app.store.paths import database_path
from app.ui.app import close_window, open_window
from app.ui.settings.data_page import DataPage
from app.ui.settings.page import PageId
from tests.store.foreign import add_triggers
from tests.ui.harness import Models, close_test_window, find, open_test_window, wait_until


async def test_foreign_triggers_found_at_start_are_removed_and_the_window_says_so(
    tmp_path: Path,
) -> None:
    db = database_path(tmp_path)
    async with Store.open(db):
        pass
    add_triggers(db)
    window = await open_window(
        str(tmp_path), preload=False, resolve_model=Models({}), secret_resolver=lambda r: "x"
    )
    try:
        assert window is not None
        assert window.notice.label.text() == (
            'The thread database held the trigger "forget_audit" and the trigger '
            '"widen_rules" that Parley does not make; they were removed before anything ran. '
            "Check your rules in Settings > Rules."
        )
    finally:
        if window is not None:
            await close_window(window)


async def test_a_backup_carrying_triggers_is_marked_and_the_replaced_database_listed(
    tmp_path: Path,
) -> None:
    db = database_path(tmp_path)
    async with Store.open(db) as store:
        await store.create_thread(title="Kept")
    service = BackupService(db)
    hostile = service.take()
    add_triggers(hostile)
    service.restore(service.take())  # the database in place is put aside as replaced
    window = await open_test_window(tmp_path, Models({}))
    try:
        dialog = window.open_settings(PageId.DATA)
        page = dialog.page(PageId.DATA)
        assert isinstance(page, DataPage)
        await wait_until(lambda: page.isVisible(), what="the Data page")
        await page.load()
        table = find(page, QTableWidget, "backupsTable")
        rows = {
            table.item(r, 0).toolTip(): [table.item(r, c).text() for c in range(4)]
            for r in range(table.rowCount())
        }
        assert len(rows) == 3
        marked = rows[str(hostile)]
        assert marked[3] == (
            'not restorable: it holds the trigger "forget_audit" and the trigger '
            '"widen_rules" that Parley does not make'
        )
        (replaced,) = [cells for cells in rows.values() if cells[1].startswith("Replaced on ")]
        assert replaced[1] == f"Replaced on {replaced[0][:10]}" and replaced[3] == "1"
        restore = find(page, QPushButton, "restoreBackupButton")
        row = next(r for r in range(table.rowCount()) if table.item(r, 0).toolTip() == str(hostile))
        table.selectRow(row)
        assert not restore.isEnabled()
        assert "cannot be restored: it holds the trigger" in restore.toolTip()
        assert not await page.restore_selected()
        await asyncio.sleep(0)
    finally:
        await close_test_window(window)
