"""A damaged thread database at start: the window asks before anything opens, never changes
the file, and opens a read-only copy, exports what can be read, or quits."""

from __future__ import annotations

import asyncio
import hashlib
from pathlib import Path

from PySide6.QtWidgets import QApplication, QFileDialog

from app.store.paths import database_path
from app.ui.app import close_window, open_window
from app.ui.startup_check import READ_ONLY_NOTICE, DamagedDialog
from tests.store.damage import damage_first_thread, make_database
from tests.ui.harness import Models, wait_until


def visible(cls: type) -> object | None:
    for widget in QApplication.topLevelWidgets():
        if isinstance(widget, cls) and widget.isVisible():
            return widget
    return None


async def damaged(data: Path) -> tuple[Path, str]:
    db = database_path(data)
    data.mkdir(parents=True, exist_ok=True)
    await make_database(db)
    damage_first_thread(db)
    return db, hashlib.sha256(db.read_bytes()).hexdigest()


def opening(data: Path) -> asyncio.Task[object]:
    return asyncio.ensure_future(
        open_window(
            str(data),
            preload=False,
            resolve_model=Models({}),
            secret_resolver=lambda ref: "unused",
        )
    )


async def test_a_damaged_database_opens_as_a_read_only_copy_and_is_left_alone(
    tmp_path: Path,
) -> None:
    db, before = await damaged(tmp_path)
    task = opening(tmp_path)
    box = await wait_until(lambda: visible(DamagedDialog), what="the question")
    assert isinstance(box, DamagedDialog)
    assert box.text() == "Parley's thread database is damaged."
    assert "Parley has not changed the file." in box.informativeText()
    box.read_only.click()
    window = await task
    try:
        assert window is not None
        assert window.notice.label.text() == READ_ONLY_NOTICE
        assert window.threads_vm.model.rowCount() == 4
        assert not window.composer.send_button.isEnabled()
        assert not window.composer.compare_button.isEnabled()
        assert "read-only" in window.composer.edit.placeholderText()
        assert window.workspace.data.read_only is not None
        assert list((tmp_path / "rescued").glob("*.db"))
    finally:
        if window is not None:
            await close_window(window)
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before


async def test_export_what_can_be_read_then_quit(tmp_path: Path) -> None:
    data = tmp_path / "data"
    db, before = await damaged(data)
    target = tmp_path / "saved"
    target.mkdir()
    task = opening(data)
    box = await wait_until(lambda: visible(DamagedDialog), what="the question")
    assert isinstance(box, DamagedDialog)
    box.export.click()
    dialog = await wait_until(lambda: visible(QFileDialog), what="the folder dialog")
    assert isinstance(dialog, QFileDialog)
    dialog.setDirectory(str(target))
    dialog.accept()
    again = await wait_until(
        lambda: (b := visible(DamagedDialog)) is not None and b is not box and b, what="again"
    )
    assert isinstance(again, DamagedDialog)
    assert again.informativeText().startswith("A copy of the damaged database is in ")
    assert "Exported 3 threads" in again.informativeText()
    assert len(list(target.glob("*.json"))) == 3
    again.quit.click()
    assert await task is None
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before
