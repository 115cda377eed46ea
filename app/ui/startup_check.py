"""At start, before the window: SQLite's quick check of the thread database. A damaged one is
never changed; the user can open a read-only copy, export what can still be read, or quit."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Literal

from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget

from app.core.errors import ParleyError
from app.services.data.actions import (
    DatabaseHealth,
    RescuedStore,
    check_store,
    export_damaged,
    open_rescued_copy,
)
from app.ui.dialogs import ask
from app.ui.file_dialogs import chosen_paths, file_dialog

__all__ = ["READ_ONLY_NOTICE", "UNREADABLE_COPY_NOTICE", "DamagedDialog", "store_at_start"]

READ_ONLY_NOTICE = (
    "This is a read-only copy of your damaged thread database: you can read and export your "
    "threads (File > Export all threads…), but nothing new is saved."
)

UNREADABLE_COPY_NOTICE = (
    "This is a read-only copy of your damaged thread database. The list of threads cannot be "
    "read from it, so there is nothing to show or export here. The original file is untouched "
    "in your data folder (Help > Open data folder); a database recovery tool may save more."
)


class DamagedDialog(QMessageBox):
    """The question asked about a damaged database (object name ``damagedStoreDialog``)."""

    def __init__(
        self, health: DatabaseHealth, note: str = "", parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("damagedStoreDialog")
        self.setIcon(QMessageBox.Icon.Warning)
        self.setWindowTitle("Parley's thread database is damaged")
        self.setText("Parley's thread database is damaged.")
        first = health.problems[0] if health.problems else "unknown damage"
        info = (
            f"SQLite's check of {health.path} found: {first}.\n\n"
            "Parley has not changed the file. It can open a copy for reading only, so you can "
            "look at your threads and export them, or export what can still be read right away."
        )
        self.setInformativeText(f"{note}\n\n{info}" if note else info)
        self.read_only = self.addButton("Open a read-only copy", QMessageBox.ButtonRole.AcceptRole)
        self.read_only.setObjectName("openReadOnlyButton")
        self.export = self.addButton("Export what can be read…", QMessageBox.ButtonRole.ActionRole)
        self.export.setObjectName("exportReadableButton")
        self.quit = self.addButton("Quit", QMessageBox.ButtonRole.RejectRole)
        self.quit.setObjectName("quitButton")
        self.setDefaultButton(self.read_only)


async def _choose_folder() -> Path | None:
    dialog = file_dialog(None, "Export the readable threads into a folder", "exportReadableDialog")
    dialog.setFileMode(QFileDialog.FileMode.Directory)
    chosen = await chosen_paths(dialog)
    return Path(chosen[0]) if chosen else None


async def store_at_start(
    data_dir: str | os.PathLike[str] | None,
) -> RescuedStore | Literal[False] | None:
    """``None``: the database is healthy (or new), open it as usual; a read-only copy of the
    damaged one when the user chose that; ``False`` when the user chose to quit."""
    health = await asyncio.to_thread(check_store, data_dir)
    if not health.exists or health.healthy:
        return None
    note = ""
    while True:
        box = DamagedDialog(health, note)
        await ask(box)
        clicked = box.clickedButton()
        if clicked is box.read_only:
            try:
                return await open_rescued_copy(health)
            except (OSError, ParleyError) as exc:
                note = f"The copy could not be opened: {exc}"
                continue
        if clicked is box.export:
            folder = await _choose_folder()
            if folder is not None:
                try:
                    note = (await export_damaged(health, folder)).summary()
                except (OSError, ParleyError) as exc:
                    note = f"Nothing was exported: {exc}"
            continue
        return False
