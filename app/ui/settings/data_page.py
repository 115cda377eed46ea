"""Data: the backups of the thread database (date, kind, size, threads, or damaged), the space
they take, Back up now, and Restore… (asks first; the window then reopens on the backup)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QTableWidgetItem,
    QWidget,
)

from app.core.errors import ParleyError
from app.services.data.backups import KEEP_DAILY, KEEP_WEEKLY, BackupEntry, BackupService
from app.text.sizes import human_size
from app.ui.dialogs import ask, confirmation_box
from app.ui.settings._form import page_layout, result_label, rows_table
from app.ui.settings._labels import muted
from app.ui.settings.page import SettingsPage
from app.ui.tasks import spawn

__all__ = ["DataPage"]

KINDS = {"daily": "Daily", "migration": "Before an update", "manual": "By hand"}
COLUMNS = ["Taken", "Kind", "Size", "Threads"]


class DataPage(SettingsPage):
    """The backups in a table (``backupsTable``) with ``backupNowButton`` and
    ``restoreBackupButton``; a chosen restore is handed on by :attr:`restore_requested`."""

    TITLE = "Data"
    OBJECT_NAME = "dataSettingsPage"

    restore_requested = Signal(Path)
    """The user confirmed restoring this backup; the window closes the database and reopens."""

    def __init__(self, backups: BackupService, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.backups = backups
        layout = page_layout(
            self,
            "Backups",
            f"Parley keeps a copy of your thread database once a day while it runs (the last "
            f"{KEEP_DAILY} days and {KEEP_WEEKLY} weeks) and before every update of its "
            f"format. A backup holds your threads, attachments and approvals, never your API "
            f"keys. Restoring one keeps the current database aside; nothing is deleted.",
        )
        self.table = rows_table(
            self, "backupsTable", "Backups of the thread database", COLUMNS, stretch=3
        )
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.itemSelectionChanged.connect(self._selection_changed)
        self.empty = muted(QLabel("No backups yet: the first is taken a minute after start.", self))
        self.empty.setObjectName("backupsEmpty")
        self.space = muted(QLabel("", self))
        self.space.setObjectName("backupSpace")
        self.space.setWordWrap(True)
        self.backup_now = QPushButton("&Back up now", self)
        self.backup_now.setObjectName("backupNowButton")
        self.backup_now.clicked.connect(lambda: spawn(self.take_backup()))
        self.restore = QPushButton("&Restore…", self)
        self.restore.setObjectName("restoreBackupButton")
        self.restore.setEnabled(False)
        self.restore.clicked.connect(lambda: spawn(self.restore_selected()))
        self.message = result_label(self, "backupMessage")
        buttons = QHBoxLayout()
        buttons.addWidget(self.space, 1)
        buttons.addWidget(self.backup_now)
        buttons.addWidget(self.restore)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.empty)
        layout.addLayout(buttons)
        layout.addWidget(self.message)
        self.entries: list[BackupEntry] = []
        self.confirm_box: QMessageBox | None = None

    async def load(self) -> None:
        """List the backups (each checked with SQLite's integrity check, off the loop)."""
        service = self.backups
        self.entries = await asyncio.to_thread(service.list)
        self.table.setRowCount(len(self.entries))
        for row, entry in enumerate(self.entries):
            threads = (
                f"damaged: {entry.damaged}"
                if entry.damaged
                else f"not restorable: it {entry.refused}"
                if entry.refused
                else str(entry.thread_count or 0)
            )
            kind = KINDS.get(entry.kind, entry.kind)
            if entry.kind == "replaced":  # the database a restore put aside
                kind = f"Replaced on {entry.taken:%Y-%m-%d}"
            cells = (
                f"{entry.taken:%Y-%m-%d %H:%M}",
                kind,
                human_size(entry.size_bytes),
                threads,
            )
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(str(entry.path))
                self.table.setItem(row, col, item)
        self.table.setVisible(bool(self.entries))
        self.empty.setVisible(not self.entries)
        count = len(self.entries)
        noun = "backup takes" if count == 1 else "backups take"
        self.space.setText(
            f"{count} {noun} {human_size(service.space(self.entries))} in {service.folder}"
            if count
            else ""
        )
        self._selection_changed()

    def selected(self) -> BackupEntry | None:
        """The backup chosen in the table, if any."""
        rows = {i.row() for i in self.table.selectedItems()}
        return self.entries[rows.pop()] if len(rows) == 1 else None

    def _selection_changed(self) -> None:
        entry = self.selected()
        self.restore.setEnabled(entry is not None and entry.restorable)
        if entry is not None and not entry.healthy:
            self.restore.setToolTip("This backup is damaged and cannot be restored.")
        elif entry is not None and entry.refused:
            self.restore.setToolTip(f"This backup cannot be restored: it {entry.refused}.")
        else:
            self.restore.setToolTip("")

    async def take_backup(self) -> Path | None:
        """Write a backup now, then list it."""
        self.backup_now.setEnabled(False)
        self.message.setText("Writing a backup…")
        try:
            path = await asyncio.to_thread(self.backups.take)
        except ParleyError as exc:
            self.message.setText(f"No backup was written: {exc}")
            return None
        finally:
            self.backup_now.setEnabled(True)
        self.message.setText(f"Backup written: {path.name}.")
        await self.load()
        return path

    def confirmation(self, entry: BackupEntry) -> QMessageBox:
        """The question Restore… asks; Cancel is the default."""
        threads = entry.thread_count or 0
        box, self.confirm_restore = confirmation_box(
            self,
            "restoreBackupDialog",
            "Restore a backup",
            f"Restore the backup of {entry.taken:%Y-%m-%d %H:%M} "
            f"({threads} thread{'' if threads == 1 else 's'})?",
            "Parley closes the thread database, moves it into the backup folder (nothing is "
            "deleted) and opens this backup in its place. Threads written since the backup "
            "are only in the database moved aside.",
            ("Restore", "confirmRestoreButton", QMessageBox.ButtonRole.AcceptRole),
        )
        return box

    async def restore_selected(self) -> bool:
        """Ask, then hand the chosen backup on to be restored; ``False`` when cancelled."""
        entry = self.selected()
        if entry is None or not entry.restorable:
            return False
        self.confirm_box = box = self.confirmation(entry)
        await ask(box)
        self.confirm_box = None
        if box.clickedButton() is not self.confirm_restore:
            return False
        self.restore_requested.emit(entry.path)
        return True
