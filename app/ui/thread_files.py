"""``ThreadFiles``: a thread written to a file (Markdown or JSON, File > Export thread…) and
an exported JSON file read back as a new thread (File > Import thread…). Every failure is
said in one sentence, never raised."""

from __future__ import annotations

import asyncio
from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QWidget

from app.core.errors import ParleyError
from app.services.threads import ThreadService
from app.ui.file_dialogs import chosen_paths, file_dialog
from app.ui.notifier import Notifier
from app.ui.window_part import WindowPart

__all__ = ["ThreadFiles"]


class ThreadFiles(WindowPart):
    """Export and import through ``threads`` for one window; file dialogs open over
    ``window``."""

    def __init__(self, threads: ThreadService, notifier: Notifier, window: QWidget) -> None:
        super().__init__(window)
        self.threads = threads
        self.notifier = notifier

    async def export_thread(self, thread_id: str, fmt: str, title: str) -> Path | None:
        """Ask where (offering ``title`` as the name), then write the thread as Markdown or
        JSON."""
        dialog = file_dialog(self.over(), "Export thread", "exportThreadDialog")
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        suffix = "md" if fmt == "markdown" else "json"
        dialog.setNameFilters(["Markdown (*.md)", "JSON (*.json)"])
        dialog.selectNameFilter("Markdown (*.md)" if fmt == "markdown" else "JSON (*.json)")
        dialog.setDefaultSuffix(suffix)
        dialog.selectFile(f"{title or 'thread'}.{suffix}")
        paths = await chosen_paths(dialog)
        if not paths:
            return None
        path = Path(paths[0])
        chosen = "json" if path.suffix.lower() == ".json" else "markdown"
        return await self.write_export(thread_id, chosen, path)

    async def export_branch(self, thread_id: str, number: int, title: str) -> Path | None:
        """Ask where, then write branch ``number`` of the thread as Markdown."""
        dialog = file_dialog(self.over(), "Export branch", "exportBranchDialog")
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setNameFilters(["Markdown (*.md)"])
        dialog.setDefaultSuffix("md")
        dialog.selectFile(f"{title or 'thread'} (branch {number}).md")
        paths = await chosen_paths(dialog)
        if not paths:
            return None
        path = Path(paths[0])
        try:
            data = await self.threads.export_branch(thread_id, number)
            await asyncio.to_thread(path.write_bytes, data)
        except (OSError, ParleyError) as exc:
            self.notifier.show(f"Could not export to {path}: {exc}", level="error")
            return None
        self.notifier.show(f"Exported to {path}.", timeout_ms=5000)
        return path

    async def write_export(self, thread_id: str, fmt: str, path: Path) -> Path | None:
        """Write the thread to ``path``; a failure is shown, never raised."""
        try:
            data = await self.threads.export(thread_id, "json" if fmt == "json" else "markdown")
            await asyncio.to_thread(path.write_bytes, data)
        except (OSError, ParleyError) as exc:
            self.notifier.show(f"Could not export to {path}: {exc}", level="error")
            return None
        self.notifier.show(f"Exported to {path}.", timeout_ms=5000)
        return path

    async def import_file(self, path: Path | None = None) -> tuple[str, list[str], Path] | None:
        """Ask for an exported JSON file (unless ``path`` is given) and import it: the new
        thread's id, what the import left out and why, and the file read."""
        if path is None:
            dialog = file_dialog(self.over(), "Import thread", "importThreadDialog")
            dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
            dialog.setNameFilters(["Parley thread (*.json)", "All files (*)"])
            paths = await chosen_paths(dialog)
            if not paths:
                return None
            path = Path(paths[0])
        try:
            data = await asyncio.to_thread(path.read_bytes)
            thread = await self.threads.import_json(data)
        except (OSError, ParleyError) as exc:
            self.notifier.show(f"Could not import {path.name}: {exc}", level="error")
            return None
        return thread.id, list(thread.notes), path
