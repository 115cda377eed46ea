"""A read-only copy whose thread list itself is unreadable still opens a window that says so."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

from app.store.paths import database_path
from app.ui.app import close_window
from app.ui.startup_check import DamagedDialog
from tests.store.damage import make_database
from tests.ui.data.test_damaged_store import opening, visible
from tests.ui.harness import wait_until


def damage_thread_list(path: Path) -> None:
    """Overwrite the header of the threads table's root page: no thread can be listed."""
    with sqlite3.connect(path) as conn:
        page_size = int(conn.execute("PRAGMA page_size").fetchone()[0])
        root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'threads'").fetchone()
    conn.close()
    with path.open("r+b") as fh:
        fh.seek((int(root[0]) - 1) * page_size)
        fh.write(b"\xff" * 64)


async def test_a_copy_with_no_readable_thread_list_opens_and_says_so(tmp_path: Path) -> None:
    db = database_path(tmp_path)
    await make_database(db)
    damage_thread_list(db)
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    task = opening(tmp_path)
    box = await wait_until(lambda: visible(DamagedDialog), what="the question")
    assert isinstance(box, DamagedDialog)
    box.read_only.click()
    window = await task
    assert window is not None
    try:
        assert window.isVisible()
        assert window.threads_vm.model.rowCount() == 0
        text = window.notice.label.text()
        assert "read-only copy" in text
        assert "The list of threads cannot be read" in text
        assert window.composer.edit.isReadOnly()
        assert not window.composer.send_button.isEnabled()
        assert not window.sidebar.new_button.isEnabled()
    finally:
        await close_window(window)
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before
