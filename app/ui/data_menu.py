"""The window's data actions: File > Export all threads… and Delete all data…, Help > Copy
diagnostics, Open data folder and Open log folder (the window's action table puts them in its
menus)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QUrl, Signal, qVersion
from PySide6.QtGui import QDesktopServices, QGuiApplication
from PySide6.QtWidgets import QMessageBox, QWidget

from app.core.errors import ParleyError
from app.services.data.actions import DataActions
from app.services.diagnostics import QtInfo
from app.services.settings.store import SettingsStore
from app.services.threads import ThreadService
from app.ui.chat.viewmodel import ChatViewModel
from app.ui.dialogs import ask, confirmation_box
from app.ui.file_dialogs import ask_folder
from app.ui.notifier import Notifier
from app.ui.window_part import ThreadPart

__all__ = ["DataMenu"]


class DataMenu(ThreadPart):
    """The actions, each a coroutine the menu items spawn (tests await them), carried out by
    ``data`` (the threads counted by ``threads``, the models named from ``settings`` and the
    open thread); dialogs open over ``window``."""

    closeRequested = Signal()
    """Everything was deleted: the window closes."""

    deleted = False
    """Whether Delete all data went through."""

    def __init__(
        self,
        data: DataActions,
        threads: ThreadService,
        settings: SettingsStore,
        chat_vm: ChatViewModel,
        notifier: Notifier,
        window: QWidget,
    ) -> None:
        super().__init__(chat_vm, notifier, window)
        self.data = data
        self.threads = threads
        self.settings = settings

    # Help ---------------------------------------------------------------------------

    async def copy_diagnostics(self) -> str:
        """Put the diagnostics report on the clipboard (no message text, no secrets)."""
        app = QGuiApplication.instance()
        platform = app.platformName() if isinstance(app, QGuiApplication) else "unknown"
        specs = [self.settings.current.default_model]
        if self.chat_vm.thread_id:
            try:
                thread = await self.threads.get(self.chat_vm.thread_id)
            except ParleyError:
                thread = None
            if thread is not None and thread.model:
                specs.append(thread.model)
        report = await self.data.diagnostics(specs, QtInfo(qVersion(), platform))
        QGuiApplication.clipboard().setText(report)
        self.notifier.show(
            "Copied the diagnostics: versions, platform, models and folders; no messages and "
            "no keys. Paste them into your bug report.",
            timeout_ms=6000,
        )
        return report

    def open_folder(self, folder: Path, what: str) -> bool:
        """Show ``folder`` in the file manager; say where it is when that cannot be done."""
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            self.notifier.show(
                f"The {what} folder {folder} cannot be created: {exc.strerror}.", level="error"
            )
            return False
        if QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder))):
            return True
        self.notifier.show(
            f"No file manager could be opened. The {what} folder is {folder}.", level="warning"
        )
        return False

    def open_data_folder(self) -> bool:
        """Help > Open data folder."""
        return self.open_folder(self.data.data_dir, "data")

    def open_log_folder(self) -> bool:
        """Help > Open log folder."""
        return self.open_folder(self.data.log_folder, "log")

    # File ---------------------------------------------------------------------------

    async def export_all(self, folder: Path | None = None) -> Path | None:
        """Ask for a folder (unless given) and write every thread into it as JSON and
        Markdown."""
        if folder is None:
            chosen = await ask_folder(
                self.over(), "Export all threads into a folder", "exportAllDialog"
            )
            if chosen is None:
                return None
            folder = Path(chosen)
        self.notifier.show("Exporting every thread…", level="progress")
        try:
            report = await self.data.export_all(folder)
        except (OSError, ParleyError) as exc:
            self.notifier.show(f"Nothing was exported: {exc}", level="error")
            return None
        self.notifier.show(report.summary(), level="warning" if report.failed else "info")
        return report.folder

    def confirmation(self, threads: int) -> QMessageBox:
        """The question Delete all data asks; Cancel is the default."""
        box, self.delete_button = confirmation_box(
            self.over(),
            "deleteAllDialog",
            "Delete all data",
            "Delete all of Parley's data on this computer?",
            f"This deletes for good your {threads} threads with their messages, attached "
            "files and backups, the approvals you gave, your settings (models, granted "
            "folders, MCP servers), the models you downloaded and the logs. API keys stay in "
            "your system keyring.\n\n"
            "To keep your threads, cancel and use File > Export all threads… first. "
            "Parley closes when it is done.",
            ("Delete everything", "confirmDeleteAll", QMessageBox.ButtonRole.DestructiveRole),
        )
        return box

    async def delete_all(self) -> bool:
        """Ask, then delete everything and close the window; ``False`` when cancelled."""
        threads = len(await self.threads.list_all(limit=100_000))
        box = self.confirmation(threads)
        await ask(box)
        if box.clickedButton() is not self.delete_button:
            return False
        self.notifier.show("Deleting all data…", level="progress")
        report = await self.data.delete_everything()
        self.deleted = True
        done = QMessageBox(self.over())
        done.setObjectName("deletedAllDialog")
        done.setWindowTitle("Data deleted")
        done.setText(report.summary())
        await ask(done)
        self.closeRequested.emit()
        return True

    def after_close(self) -> None:
        """The window closed: after Delete all data, forget the folder it wrote its layout to."""
        if self.deleted:
            self.data.forget_folder()
