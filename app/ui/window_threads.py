"""The main window's commands on threads (rename, system prompt, delete, step, export,
import), kept beside the window class that holds them (:class:`app.ui.window.MainWindow`
is one) so that the window's module stays about making and wiring its parts."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QMainWindow

from app.core.errors import ParleyError
from app.ui.dialogs import ask, system_prompt_dialog, text_dialog
from app.ui.tasks import spawn

if TYPE_CHECKING:
    from app.services.threads import ThreadService
    from app.ui.chat.viewmodel import ChatViewModel
    from app.ui.header import Header
    from app.ui.notifier import Notifier
    from app.ui.sidebar.viewmodel import ThreadsViewModel
    from app.ui.sidebar.widget import Sidebar
    from app.ui.splitter import MainSplitter
    from app.ui.thread_files import ThreadFiles

__all__ = ["ThreadCommands"]


class ThreadCommands(QMainWindow):
    """The main window's base: its thread commands (the menus' and shortcuts' targets)."""

    chat_vm: ChatViewModel
    threads_vm: ThreadsViewModel
    header: Header
    sidebar: Sidebar
    splitter: MainSplitter
    files: ThreadFiles
    notifier: Notifier

    if TYPE_CHECKING:  # the window's own

        @property
        def thread_service(self) -> ThreadService: ...

        async def open_thread(self, thread_id: str) -> None: ...
        def toggle_sidebar(self) -> None: ...

    def rename_in_place(self) -> None:
        """F2: edit the focused thread's title right in the sidebar."""
        if self.splitter.sidebar_hidden():
            self.toggle_sidebar()
        if not self.sidebar.list.hasFocus() and self.chat_vm.thread_id:
            self.sidebar.select(self.chat_vm.thread_id)
        self.sidebar.rename_current()

    async def rename_thread(self) -> None:
        """Rename the open thread."""
        if self.chat_vm.thread_id is None:
            return
        dialog, edit = text_dialog(self, "Rename thread", "A new title for this thread:")
        edit.setText(self.header.title.text())
        edit.selectAll()
        if await ask(dialog) and edit.text().strip():
            await self.threads_vm.rename(self.chat_vm.thread_id, edit.text())
            self.header.title.setText(" ".join(edit.text().split()))

    async def edit_system_prompt(self) -> None:
        """Edit the open thread's system prompt."""
        if self.chat_vm.thread_id is None:
            return
        thread = await self.thread_service.get(self.chat_vm.thread_id)
        dialog, edit = system_prompt_dialog(self, thread.system_prompt or "")
        if await ask(dialog):
            await self.thread_service.set_system_prompt(thread.id, edit.toPlainText())
            self.notifier.show("The system prompt is saved.", timeout_ms=3000)

    async def show_branches(self) -> None:
        """Thread > Branches…: the open thread's versions as a tree, to open or name one."""
        from app.ui.branch_tree import BranchTreeDialog

        thread_id = self.chat_vm.thread_id
        if thread_id is None:
            return
        dialog = BranchTreeDialog(self, self.thread_service, thread_id)
        if not await dialog.load():
            dialog.deleteLater()
            self.notifier.show(
                "This thread has no branches yet: editing a question or answering one again "
                "makes one.",
                timeout_ms=5000,
            )
            return
        dialog.opened.connect(lambda _n: spawn(self.chat_vm.open_thread(thread_id)))
        dialog.changed.connect(lambda: spawn(self.chat_vm.refresh_branches()))
        dialog.exportRequested.connect(lambda n: spawn(self._export_branch(thread_id, n)))
        await ask(dialog)
        dialog.deleteLater()

    async def open_found_branch(self, thread_id: str, number: int) -> None:
        """A search hit on branch ``number`` (a version not shown): show that branch, then
        the thread."""
        try:
            await self.thread_service.open_branch(thread_id, number)
        except ParleyError as exc:
            self.notifier.show(str(exc), level="error")
        await self.open_thread(thread_id)

    async def _export_branch(self, thread_id: str, number: int) -> None:
        """Export branch ``number``, offering a file named after the thread's saved title
        (the header may not show a new title yet)."""
        try:
            title = (await self.thread_service.get(thread_id)).title
        except ParleyError:
            title = self.header.title.text()
        await self.files.export_branch(thread_id, number, title)

    def delete_current(self) -> None:
        if self.chat_vm.thread_id is None:
            return
        self.sidebar.select(self.chat_vm.thread_id)
        self.sidebar.delete_current()

    def step_thread(self, step: int) -> None:
        rows = self.threads_vm.model.rowCount()
        if not rows:
            return
        current = self.threads_vm.model.row_of(self.chat_vm.thread_id or "")
        row = 0 if current is None else (current + step) % rows
        spawn(self.open_thread(self.threads_vm.model.rows[row].thread_id))

    # Export and import ---------------------------------------------------------------

    async def export_current(self) -> None:
        if self.chat_vm.thread_id:
            await self.export_thread(self.chat_vm.thread_id, "markdown")

    async def export_thread(self, thread_id: str, fmt: str) -> Path | None:
        """Ask where, then write the thread as Markdown or JSON."""
        return await self.files.export_thread(thread_id, fmt, self.header.title.text())

    async def write_export(self, thread_id: str, fmt: str, path: Path) -> Path | None:
        """Write the thread to ``path``; a failure is shown, never raised."""
        return await self.files.write_export(thread_id, fmt, path)

    async def import_thread(self, path: Path | None = None) -> str | None:
        """Ask for an exported JSON file (unless ``path`` is given) and open it as a thread."""
        imported = await self.files.import_file(path)
        if imported is None:
            return None
        thread_id, notes, read = imported
        await self.threads_vm.refresh()
        await self.open_thread(thread_id)
        if notes:  # what the import left out, and why
            self.notifier.show(" ".join([f"Imported {read.name}.", *notes]), level="warning")
        return thread_id
