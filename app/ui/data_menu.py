"""The window's data actions: File > Export all threads… and Delete all data…, Help > Copy
diagnostics, Open data folder and Open log folder."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QUrl, qVersion
from PySide6.QtGui import QAction, QDesktopServices, QGuiApplication
from PySide6.QtWidgets import QFileDialog, QMenu, QMessageBox

from app.core.errors import ParleyError
from app.services.diagnostics import QtInfo
from app.ui.dialogs import ask, confirmation_box
from app.ui.tasks import spawn

if TYPE_CHECKING:
    from app.ui.window import MainWindow

__all__ = ["DataMenu", "install_data_actions"]


def _menu(window: MainWindow, title: str) -> QMenu:
    for action in window.menuBar().actions():
        menu = action.menu()
        if isinstance(menu, QMenu) and action.text().replace("&", "") == title:
            return menu
    return window.menuBar().addMenu(title)


class DataMenu(QObject):
    """The actions, each a coroutine the menu items spawn (tests await them)."""

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        self.window = window
        self.workspace = window.workspace
        self.deleted = False
        window.closed.connect(self._after_close)

    # Help ---------------------------------------------------------------------------

    async def copy_diagnostics(self) -> str:
        """Put the diagnostics report on the clipboard (no message text, no secrets)."""
        app = QGuiApplication.instance()
        platform = app.platformName() if isinstance(app, QGuiApplication) else "unknown"
        specs = [self.workspace.settings.current.default_model]
        if self.window.chat_vm.thread_id:
            try:
                thread = await self.workspace.threads.get(self.window.chat_vm.thread_id)
            except ParleyError:
                thread = None
            if thread is not None and thread.model:
                specs.append(thread.model)
        report = await self.workspace.data.diagnostics(specs, QtInfo(qVersion(), platform))
        QGuiApplication.clipboard().setText(report)
        self.window.notice.show_message(
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
            self.window.notice.show_message(
                f"The {what} folder {folder} cannot be created: {exc.strerror}.", level="error"
            )
            return False
        if QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder))):
            return True
        self.window.notice.show_message(
            f"No file manager could be opened. The {what} folder is {folder}.", level="warning"
        )
        return False

    def open_data_folder(self) -> bool:
        """Help > Open data folder."""
        return self.open_folder(self.workspace.data_dir, "data")

    def open_log_folder(self) -> bool:
        """Help > Open log folder."""
        return self.open_folder(self.workspace.data.log_folder, "log")

    # File ---------------------------------------------------------------------------

    async def export_all(self, folder: Path | None = None) -> Path | None:
        """Ask for a folder (unless given) and write every thread into it as JSON and
        Markdown."""
        if folder is None:
            dialog = QFileDialog(self.window, "Export all threads into a folder")
            dialog.setObjectName("exportAllDialog")
            dialog.setOption(QFileDialog.Option.DontUseNativeDialog, True)
            dialog.setFileMode(QFileDialog.FileMode.Directory)
            dialog.setOption(QFileDialog.Option.ShowDirsOnly, True)
            if not await ask(dialog) or not dialog.selectedFiles():
                return None
            folder = Path(dialog.selectedFiles()[0])
        self.window.notice.show_message("Exporting every thread…", level="progress")
        try:
            report = await self.workspace.data.export_all(folder)
        except (OSError, ParleyError) as exc:
            self.window.notice.show_message(f"Nothing was exported: {exc}", level="error")
            return None
        level = "warning" if report.failed else "info"
        self.window.notice.show_message(report.summary(), level=level)
        return report.folder

    def confirmation(self, threads: int) -> QMessageBox:
        """The question Delete all data asks; Cancel is the default."""
        box, self.delete_button = confirmation_box(
            self.window,
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
        threads = len(await self.workspace.threads.list_all(limit=100_000))
        box = self.confirmation(threads)
        await ask(box)
        if box.clickedButton() is not self.delete_button:
            return False
        self.window.notice.show_message("Deleting all data…", level="progress")
        report = await self.workspace.data.delete_everything()
        self.deleted = True
        done = QMessageBox(self.window)
        done.setObjectName("deletedAllDialog")
        done.setWindowTitle("Data deleted")
        done.setText(report.summary())
        await ask(done)
        self.window.close()
        return True

    def _after_close(self) -> None:
        if self.deleted:  # the window wrote its layout on closing: leave no trace
            self.workspace.data.forget_folder()


def install_data_actions(window: MainWindow) -> DataMenu:
    """Add the data actions to the window's File and Help menus."""
    data = DataMenu(window)
    file = _menu(window, "File")
    close = next((a for a in file.actions() if a.text() == "&Close window"), None)

    def act(menu: QMenu, text: str, slot: object, before: QAction | None = None) -> QAction:
        action = QAction(text, window)
        action.triggered.connect(slot)
        if before is not None:
            menu.insertAction(before, action)
        else:
            menu.addAction(action)
        return action

    act(file, "Export &all threads…", lambda: spawn(data.export_all()), close)
    act(file, "&Delete all data…", lambda: spawn(data.delete_all()), close)
    if close is not None:
        file.insertSeparator(close)
    helpm = _menu(window, "Help")
    helpm.addSeparator()
    act(helpm, "&Copy diagnostics", lambda: spawn(data.copy_diagnostics()))
    act(helpm, "Open &data folder", data.open_data_folder)
    act(helpm, "Open &log folder", data.open_log_folder)
    return data
