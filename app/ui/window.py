"""``MainWindow``: sidebar and chat in a splitter, header, notice bar, composer, menus and
shortcuts. It wires widgets to the view models; it holds no conversation state itself."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSettings, Qt, Signal
from PySide6.QtGui import QAction, QCloseEvent, QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QFileDialog,
    QLabel,
    QMainWindow,
    QMenu,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from app.core.errors import ParleyError
from app.services.events import BudgetUpdated, ModelStatus, Problem
from app.services.workspace import Workspace
from app.ui.a11y import announce
from app.ui.approvals import ApprovalController
from app.ui.attachments.mcp_offers import install_mcp_offers
from app.ui.attachments.setup import WindowAttachments
from app.ui.budget.pause_panel import BudgetPausePanel
from app.ui.chat.view import ChatView
from app.ui.chat.viewmodel import ChatViewModel
from app.ui.composer import ComposerPanel
from app.ui.crash import report_unexpected
from app.ui.data_menu import install_data_actions
from app.ui.dialogs import ask, shortcuts_dialog, system_prompt_dialog, text_dialog
from app.ui.header import ADD_GGUF, Header
from app.ui.model_download import DOWNLOAD_PREFIX, install_downloads
from app.ui.model_manage import MANAGE_MODELS, add_gguf, manage_models
from app.ui.notices import NoticeBar
from app.ui.pending_send import PendingSend
from app.ui.settings.dialog import SettingsDialog
from app.ui.sidebar.viewmodel import ThreadsViewModel
from app.ui.sidebar.widget import Sidebar
from app.ui.tasks import set_failure_reporter, spawn
from app.ui.tools import install_tools

__all__ = ["EXAMPLES", "MainWindow"]

EXAMPLES = (
    "What is the capital of France?",
    "Write a haiku about autumn rain.",
    "Explain what a CPU does in two sentences.",
)
"""Prompts the empty state offers; each gets a sensible answer from the bundled model."""


class _EmptyState(QWidget):
    chosen = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("emptyState")
        title = QLabel("What can I help with?", self)
        title.setObjectName("emptyTitle")
        title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        hint = QLabel(
            "Parley runs a small model on this computer; nothing leaves it unless you pick "
            "an online model. Try one of these:",
            self,
        )
        hint.setWordWrap(True)
        hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        hint.setObjectName("emptyHint")
        layout = QVBoxLayout(self)
        layout.addStretch(2)
        layout.addWidget(title)
        layout.addSpacing(8)
        layout.addWidget(hint)
        layout.addSpacing(16)
        self.buttons = []
        for text in EXAMPLES:
            button = QPushButton(text, self)
            button.setObjectName("examplePrompt")
            button.setAccessibleName(f"Ask: {text}")
            button.clicked.connect(lambda _c=False, t=text: self.chosen.emit(t))
            layout.addWidget(button, 0, Qt.AlignmentFlag.AlignHCenter)
            button.setMinimumWidth(380)
            self.buttons.append(button)
        layout.addStretch(3)


class MainWindow(QMainWindow):
    """The main window (see the module docstring)."""

    closed = Signal()
    restore_requested = Signal(Path)
    """The user chose to restore this backup: whoever opened the window closes it, restores
    and opens a new one (see :func:`app.ui.app.reopen_restored`)."""

    def __init__(self, workspace: Workspace, *, settings_path: Path | None = None) -> None:
        super().__init__()
        self.setObjectName("mainWindow")
        self.setWindowTitle("Parley")
        self.workspace = workspace
        self.start_problem: str | None = None
        """Why the thread list could not be read at start (a damaged database), if so."""
        self.chat_vm = ChatViewModel(workspace, self)
        self.threads_vm = ThreadsViewModel(workspace, self)
        self._settings = QSettings(
            str(settings_path or workspace.data_dir / "window.ini"), QSettings.Format.IniFormat
        )

        self._settings_dialog: SettingsDialog | None = None
        self.header = Header(self)
        self.notice = NoticeBar(self)
        self.sidebar = Sidebar(self.threads_vm, self)
        self.chat = ChatView(self.chat_vm, self)
        self.empty = _EmptyState(self)
        self.composer = ComposerPanel(self)
        self.pending_send = PendingSend(
            self.composer, lambda: spawn(self._send(self.composer.text())), self
        )
        self.budget_pause = BudgetPausePanel(workspace, self)
        self.budget_pause.paused.connect(lambda e: self.header.budget.mark_paused(e.pause))
        self.stack = QStackedWidget(self)
        self.stack.addWidget(self.empty)
        self.stack.addWidget(self.chat)

        column = QWidget(self)
        column.setObjectName("chatColumn")
        col = QVBoxLayout(column)
        col.setContentsMargins(0, 0, 0, 0)
        col.setSpacing(0)
        col.addWidget(self.header)
        col.addWidget(self.notice)
        col.addWidget(self.stack, 1)
        self.approvals = ApprovalController(self)
        col.addWidget(self.approvals.banner)
        col.addWidget(self.budget_pause)
        col.addWidget(self.composer)

        self.splitter = QSplitter(Qt.Orientation.Horizontal, self)
        self.splitter.setObjectName("mainSplitter")
        self.splitter.addWidget(self.sidebar)
        self.splitter.addWidget(column)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([260, 900])
        self.splitter.setChildrenCollapsible(True)
        self.setCentralWidget(self.splitter)
        self.attachments = WindowAttachments(self)
        self.resize(1200, 800)
        self._restore_layout()

        self._wire()
        self._menus()
        self.tools_button = install_tools(self)
        self.mcp_offers = install_mcp_offers(self)
        self.data_actions = install_data_actions(self)
        self.downloads = install_downloads(self)
        self.setTabOrder(self.sidebar.new_button, self.sidebar.search)
        self.setTabOrder(self.sidebar.search, self.sidebar.list)
        self.setTabOrder(self.sidebar.list, self.header.picker)
        self.setTabOrder(self.header.picker, self.chat)
        self.setTabOrder(self.chat, self.composer.edit)
        set_failure_reporter(self._report_failure)

    # Wiring --------------------------------------------------------------------------

    def _wire(self) -> None:
        vm = self.chat_vm
        vm.model.modelReset.connect(self._update_stack)
        vm.model.rowsInserted.connect(self._update_stack)
        vm.model.rowsRemoved.connect(self._update_stack)
        vm.statusChanged.connect(self._on_status)
        vm.problem.connect(self._on_problem)
        vm.notice.connect(lambda text: self.notice.show_message(text, timeout_ms=4000))
        vm.budgetChanged.connect(self._on_budget)
        vm.replyFinished.connect(lambda text: announce(self.chat, f"Parley replied: {text}"))
        vm.threadOpened.connect(self._on_thread_opened)
        vm.threadOpened.connect(self.pending_send.thread_opened)
        self.threads_vm.problem.connect(self._on_problem)
        self.threads_vm.refreshed.connect(self._select_current)
        self.sidebar.threadActivated.connect(lambda tid: spawn(self.open_thread(tid)))
        self.sidebar.newThreadRequested.connect(lambda: spawn(self.new_thread()))
        self.sidebar.exportRequested.connect(lambda tid, fmt: spawn(self.export_thread(tid, fmt)))
        self.composer.sendRequested.connect(lambda text: spawn(self._send(text)))
        self.composer.stopRequested.connect(self.chat_vm.stop)
        self.composer.editLastRequested.connect(self._edit_last)
        self.composer.attachRequested.connect(self.attachments.pick)
        self.chat.editRequested.connect(self.composer.enter_edit_mode)
        self.chat.remedyRequested.connect(lambda a, t: spawn(self._remedy(a, t)))
        self.empty.chosen.connect(lambda text: spawn(self._send(text)))
        self.header.modelChosen.connect(lambda spec: spawn(self._choose_model(spec)))
        self.header.renameRequested.connect(lambda: spawn(self.rename_thread()))
        self.header.network.watch(self.workspace.network)
        self.header.network.clicked.connect(lambda: self.open_settings("networkSettingsPage"))
        self.workspace.events.subscribe(self._on_workspace_event)

    def _menus(self) -> None:
        def act(
            menu: QMenu,
            text: str,
            keys: QKeySequence | QKeySequence.StandardKey | None,
            slot: Callable[[], object],
        ) -> QAction:
            action = QAction(text, self)
            if keys is not None:
                action.setShortcut(keys)
            action.triggered.connect(slot)
            menu.addAction(action)
            self.addAction(action)
            return action

        bar = self.menuBar()
        file = bar.addMenu("&File")
        act(file, "&New thread", QKeySequence.StandardKey.New, lambda: spawn(self.new_thread()))
        act(file, "&Import thread…", QKeySequence("Ctrl+I"), lambda: spawn(self.import_thread()))
        act(file, "&Attach files…", QKeySequence("Ctrl+O"), self.attachments.pick)
        act(
            file,
            "Attach from &MCP server…",
            QKeySequence("Ctrl+Shift+O"),
            lambda: spawn(self.mcp_offers.open_menu()),
        )
        act(file, "&Export thread…", QKeySequence("Ctrl+E"), lambda: spawn(self._export_current()))
        act(file, "&Settings…", QKeySequence("Ctrl+,"), lambda: self.open_settings())
        file.addSeparator()
        act(file, "&Close window", QKeySequence.StandardKey.Close, self.close)
        act(file, "&Quit", QKeySequence.StandardKey.Quit, self.close)
        edit = bar.addMenu("&Edit")
        act(edit, "Copy last &answer", QKeySequence("Ctrl+Shift+C"), self.copy_last_answer)
        act(
            edit,
            "&Regenerate answer",
            QKeySequence("Ctrl+R"),
            lambda: spawn(self.chat_vm.regenerate()),
        )
        act(edit, "Focus &message box", QKeySequence("Ctrl+L"), self.composer.edit.setFocus)
        act(edit, "&Search threads", QKeySequence.StandardKey.Find, self._focus_search)
        thread = bar.addMenu("&Thread")
        act(thread, "&Rename", QKeySequence("F2"), self._rename_in_place)
        act(thread, "System &prompt…", None, lambda: spawn(self.edit_system_prompt()))
        act(thread, "Choose &model", QKeySequence("Ctrl+M"), self._open_picker)
        act(thread, "&Delete", None, self._delete_current)
        act(thread, "&Previous thread", QKeySequence("Ctrl+PgUp"), lambda: self._step_thread(-1))
        act(thread, "&Next thread", QKeySequence("Ctrl+PgDown"), lambda: self._step_thread(1))
        view = bar.addMenu("&View")
        act(view, "Show &sidebar", QKeySequence("Ctrl+B"), self.toggle_sidebar)
        self.offline_action = act(view, "Work &offline", None, lambda: None)
        self.offline_action.setCheckable(True)
        self.offline_action.setChecked(self.workspace.network.offline)
        self.offline_action.toggled.connect(
            lambda on: spawn(self.workspace.preferences.set_offline(on))
        )
        view.aboutToShow.connect(self._sync_offline)
        act(
            view,
            "&Network connections…",
            None,
            lambda: self.open_settings("networkSettingsPage"),
        )
        helpm = bar.addMenu("&Help")
        act(helpm, "&Keyboard shortcuts", QKeySequence("F1"), lambda: spawn(self.show_shortcuts()))

    def _sync_offline(self) -> None:
        self.offline_action.blockSignals(True)
        self.offline_action.setChecked(self.workspace.network.offline)
        self.offline_action.blockSignals(False)

    # Start-up and threads ------------------------------------------------------------

    async def start(self, thread_id: str | None = None, *, preload: bool = True) -> None:
        """Fill the sidebar, open ``thread_id`` (or the latest, or a new thread), and load the
        default local model in the background."""
        try:
            await self.threads_vm.refresh()
        except ParleyError as exc:  # a damaged thread list: the window still opens and says so
            self.start_problem = str(exc)
        if thread_id is None and self.threads_vm.model.rowCount():
            thread_id = self.threads_vm.model.rows[0].thread_id
        if thread_id is None and self.start_problem is None and not self.workspace.data.read_only:
            thread_id = (await self.workspace.threads.create()).id
            await self.threads_vm.refresh()
        if thread_id is not None:
            await self.open_thread(thread_id)
        spawn(self.refresh_models())
        self.workspace.mcp.start_in_background()
        default = self.workspace.settings.current.default_model
        if preload and (default == "local" or default.startswith("gguf:")):
            spawn(self.workspace.models.preload(default))
        self.composer.edit.setFocus()

    async def open_thread(self, thread_id: str) -> None:
        """Show ``thread_id``."""
        self.composer.leave_edit_mode()
        await self.chat_vm.open_thread(thread_id)
        await self._after_open(thread_id)

    def _on_thread_opened(self, thread_id: str) -> None:
        current = self.sidebar.current_thread()
        if current is None or current[0] != thread_id:
            spawn(self._after_open(thread_id))  # opened by the view model (e.g. an edit's fork)

    async def _after_open(self, thread_id: str) -> None:
        self.sidebar.select(thread_id)
        try:
            thread = await self.workspace.threads.get(thread_id)
        except ParleyError:
            return
        self.header.title.setText(thread.title or "New thread")
        self.setWindowTitle(f"{thread.title or 'New thread'} — Parley")
        self.header.show_model(thread.model or self.workspace.settings.current.default_model)
        self._show_usage()
        await self.budget_pause.show_for(thread_id)

    def _select_current(self) -> None:
        if self.chat_vm.thread_id:
            self.sidebar.select(self.chat_vm.thread_id)
            row = self.threads_vm.model.row_of(self.chat_vm.thread_id)
            if row is not None:
                title = self.threads_vm.model.rows[row].title
                if not self.threads_vm.model.rows[row].snippet:
                    self.header.title.setText(title)

    def show_read_only(self) -> None:
        """Nothing new can be saved (a rescued copy): reading, searching and exporting stay."""
        edit = self.composer.edit
        edit.setReadOnly(True)
        edit.setPlaceholderText("This copy is read-only: nothing new can be sent or saved.")
        for button in (self.composer.attach_button, self.composer.send_button):
            button.setEnabled(False)
        self.sidebar.new_button.setEnabled(False)
        self.empty.setEnabled(False)

    async def new_thread(self) -> None:
        """Start a new thread (reusing the open one when it is still empty)."""
        if self.workspace.data.read_only:
            return
        if self.chat_vm.thread_id and self.chat_vm.model.rowCount() == 0:
            self.composer.edit.setFocus()
            return
        thread = await self.workspace.threads.create()
        await self.open_thread(thread.id)
        self.composer.edit.setFocus()

    def _rename_in_place(self) -> None:
        """F2: edit the focused thread's title right in the sidebar."""
        if self.splitter.sizes()[0] == 0:
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
        thread = await self.workspace.threads.get(self.chat_vm.thread_id)
        dialog, edit = system_prompt_dialog(self, thread.system_prompt or "")
        if await ask(dialog):
            await self.workspace.threads.set_system_prompt(thread.id, edit.toPlainText())
            self.notice.show_message("The system prompt is saved.", timeout_ms=3000)

    def _delete_current(self) -> None:
        if self.chat_vm.thread_id is None:
            return
        self.sidebar.select(self.chat_vm.thread_id)
        self.sidebar.delete_current()

    def _step_thread(self, step: int) -> None:
        rows = self.threads_vm.model.rowCount()
        if not rows:
            return
        current = self.threads_vm.model.row_of(self.chat_vm.thread_id or "")
        row = 0 if current is None else (current + step) % rows
        spawn(self.open_thread(self.threads_vm.model.rows[row].thread_id))

    # Export and import ---------------------------------------------------------------

    async def _export_current(self) -> None:
        if self.chat_vm.thread_id:
            await self.export_thread(self.chat_vm.thread_id, "markdown")

    async def export_thread(self, thread_id: str, fmt: str) -> Path | None:
        """Ask where, then write the thread as Markdown or JSON."""
        dialog = QFileDialog(self, "Export thread")
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.setOption(QFileDialog.Option.DontUseNativeDialog, True)
        suffix = "md" if fmt == "markdown" else "json"
        dialog.setNameFilters(["Markdown (*.md)", "JSON (*.json)"])
        dialog.selectNameFilter("Markdown (*.md)" if fmt == "markdown" else "JSON (*.json)")
        dialog.setDefaultSuffix(suffix)
        dialog.selectFile(f"{self.header.title.text() or 'thread'}.{suffix}")
        if not await ask(dialog) or not dialog.selectedFiles():
            return None
        path = Path(dialog.selectedFiles()[0])
        chosen = "json" if path.suffix.lower() == ".json" else "markdown"
        return await self.write_export(thread_id, chosen, path)

    async def write_export(self, thread_id: str, fmt: str, path: Path) -> Path | None:
        """Write the thread to ``path``; a failure is shown, never raised."""
        try:
            data = await self.workspace.threads.export(
                thread_id, "json" if fmt == "json" else "markdown"
            )
            await asyncio.to_thread(path.write_bytes, data)
        except (OSError, ParleyError) as exc:
            self.notice.show_message(f"Could not export to {path}: {exc}", level="error")
            return None
        self.notice.show_message(f"Exported to {path}.", timeout_ms=5000)
        return path

    async def import_thread(self, path: Path | None = None) -> str | None:
        """Ask for an exported JSON file (unless ``path`` is given) and open it as a thread."""
        if path is None:
            dialog = QFileDialog(self, "Import thread")
            dialog.setOption(QFileDialog.Option.DontUseNativeDialog, True)
            dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
            dialog.setNameFilters(["Parley thread (*.json)", "All files (*)"])
            if not await ask(dialog) or not dialog.selectedFiles():
                return None
            path = Path(dialog.selectedFiles()[0])
        try:
            data = await asyncio.to_thread(path.read_bytes)
            thread = await self.workspace.threads.import_json(data)
        except (OSError, ParleyError) as exc:
            self.notice.show_message(f"Could not import {path.name}: {exc}", level="error")
            return None
        await self.threads_vm.refresh()
        await self.open_thread(thread.id)
        if thread.notes:  # what the import left out, and why
            self.notice.show_message(
                " ".join([f"Imported {path.name}.", *thread.notes]), level="warning"
            )
        return thread.id

    # Sending -------------------------------------------------------------------------

    async def _send(self, text: str) -> None:
        if self.composer.editing is not None:
            fork = await self.chat_vm.edit_and_resend(self.composer.editing, text)
            if fork is not None:
                self.composer.accept_sent()
            return
        if self.chat_vm.thread_id is not None and self.chat_vm.status() == "running":
            self.pending_send.hold(self.chat_vm.thread_id)  # sent when the run ends
            return
        self.composer.send_button.setEnabled(False)
        try:
            blocks = self.attachments.blocks_to_send()
            notes = await self.attachments.notes_for(blocks or [])
            if blocks is not None and await self.chat_vm.send(text, blocks, notes):
                self.composer.accept_sent()
                self.attachments.tray.clear()
        finally:
            self.composer.send_button.setEnabled(True)

    def _edit_last(self) -> None:
        for row in range(self.chat_vm.model.rowCount() - 1, -1, -1):
            message = self.chat_vm.model.message_at(row)
            if message is not None and message.role == "user":
                self.composer.enter_edit_mode(str(message.message_id), message.text())
                return

    def copy_last_answer(self) -> None:
        """Copy the newest answer's text."""
        for row in range(self.chat_vm.model.rowCount() - 1, -1, -1):
            message = self.chat_vm.model.message_at(row)
            if message is not None and message.role == "assistant" and message.text():
                QGuiApplication.clipboard().setText(message.text())
                self.notice.show_message("Copied the last answer.", timeout_ms=3000)
                return

    # Models --------------------------------------------------------------------------

    async def refresh_models(self) -> None:
        """List the models the picker offers."""
        choices = await self.workspace.models.choices()
        current = None
        if self.chat_vm.thread_id:
            thread = await self.workspace.threads.get(self.chat_vm.thread_id)
            current = thread.model
        self.header.set_choices(choices, current or self.workspace.settings.current.default_model)

    async def _choose_model(self, spec: str) -> None:
        if spec == ADD_GGUF:
            await self._add_gguf()
            return
        if spec == MANAGE_MODELS:
            await manage_models(self)
            await self.refresh_models()  # the picker goes back to the thread's model
            return
        if spec.startswith(DOWNLOAD_PREFIX):
            self.downloads.start(spec)
            await self.refresh_models()  # the picker goes back to the thread's model
            return
        if self.chat_vm.thread_id is None:
            return
        try:
            await self.workspace.threads.set_model(self.chat_vm.thread_id, spec)
        except ParleyError as exc:
            self.notice.show_message(str(exc), level="error")
            return
        self.notice.show_message(f"This thread now talks to {spec}.", timeout_ms=3000)
        self.attachments.refresh_fit()

    async def _add_gguf(self) -> None:
        await add_gguf(self, self._choose_model)
        await self.refresh_models()

    def _open_picker(self) -> None:
        self.header.picker.setFocus()
        self.header.picker.showPopup()

    # Events --------------------------------------------------------------------------

    def _on_workspace_event(self, event: object) -> None:
        if isinstance(event, ModelStatus):
            if event.state == "loading":
                self.header.status.setText("Loading model…")
            elif event.state == "ready":
                self.header.status.setText("")
            else:
                self.header.status.setText("")
                self.notice.show_message(event.text, level="error")

    def _update_stack(self, *_args: object) -> None:
        empty = self.chat_vm.model.rowCount() == 0
        self.stack.setCurrentWidget(self.empty if empty else self.chat)

    def _on_status(self, status: str) -> None:
        self.composer.set_running(status == "running")
        self.composer.hint.setText(
            "Parley is answering… (Esc stops)" if status == "running" else ""
        )
        self.pending_send.status_changed(self.chat_vm.thread_id, status)
        if status not in ("running", "waiting"):
            self._show_usage()

    def _on_problem(self, problem: Problem) -> None:
        action: tuple[str, Callable[[], None]] | None = None
        for remedy in problem.remedies:
            if remedy.action == "retry":
                action = (remedy.label, lambda: self._spawn(self.chat_vm.regenerate()))
            elif remedy.action == "set_key":
                action = (
                    remedy.label,
                    lambda t=remedy.target or "": self._spawn(self._remedy("set_key", t)),
                )
            elif remedy.action == "pick_model":
                action = (remedy.label, self._open_picker)
        self.notice.show_message(problem.text, level="error", action=action)

    def _on_budget(self, event: BudgetUpdated) -> None:
        self.header.budget.show_run(event.usage, event.limits)

    def _show_usage(self) -> None:
        tokens = 0
        for row in range(self.chat_vm.model.rowCount()):
            message = self.chat_vm.model.message_at(row)
            if message is not None and message.usages:
                tokens += message.usages.total_tokens
        self.header.budget.show_total(tokens)

    async def _remedy(self, action: str, target: str) -> None:
        if action == "set_key":
            dialog, edit = text_dialog(
                self,
                "API key",
                f"Paste the API key for {target}. It is kept in your system "
                "keyring, never in Parley's files.",
                secret=True,
            )
            if await ask(dialog) and edit.text().strip():
                try:
                    where = await self.workspace.preferences.set_key(target, edit.text())
                except ParleyError as exc:
                    self.notice.show_message(str(exc), level="error")
                    return
                self.notice.show_message(where, timeout_ms=4000)
        elif action == "pick_model":
            self._open_picker()
        elif action == "open_settings":
            self.open_settings()

    def open_settings(self, page: str | None = None) -> SettingsDialog:
        """Open the settings dialog (Ctrl+,) without blocking, at ``page`` when given."""
        if self._settings_dialog is None:
            self._settings_dialog = SettingsDialog(self.workspace, self)
            self.closed.connect(self._settings_dialog.close)
            data = self._settings_dialog.page("dataSettingsPage")
            data.restore_requested.connect(self._restore_requested)  # type: ignore[attr-defined]
        self._settings_dialog.open_at(page)
        return self._settings_dialog

    def _restore_requested(self, backup: Path) -> None:
        if self._settings_dialog is not None:
            self._settings_dialog.close()
        self.notice.show_message("Restoring the backup…", level="progress")
        self.restore_requested.emit(backup)

    @staticmethod
    def _spawn(coro: Coroutine[Any, Any, Any]) -> None:
        spawn(coro)

    def _report_failure(self, exc: BaseException) -> None:
        if not isinstance(exc, ParleyError) and report_unexpected(exc, "a window task"):
            return
        self.notice.show_message(
            f"Something went wrong ({type(exc).__name__}: {str(exc)[:200]}). Your data is safe.",
            level="error",
        )

    # Window --------------------------------------------------------------------------

    def toggle_sidebar(self) -> None:
        """Collapse or expand the sidebar (Ctrl+B)."""
        sizes = self.splitter.sizes()
        if sizes[0] > 0:
            self._sidebar_width = sizes[0]
            self.splitter.setSizes([0, sum(sizes)])
        else:
            width = getattr(self, "_sidebar_width", 260)
            self.splitter.setSizes([width, max(200, sum(sizes) - width)])

    def _focus_search(self) -> None:
        if self.splitter.sizes()[0] == 0:
            self.toggle_sidebar()
        self.sidebar.search.setFocus()
        self.sidebar.search.selectAll()

    async def show_shortcuts(self) -> None:
        """Help > Keyboard shortcuts."""
        await ask(shortcuts_dialog(self))

    def _restore_layout(self) -> None:
        geometry = self._settings.value("geometry")
        if geometry is not None:
            self.restoreGeometry(geometry)
        splitter = self._settings.value("splitter")
        if splitter is not None:
            self.splitter.restoreState(splitter)

    def save_layout(self) -> None:
        """Remember the window's size, position and splitter."""
        self._settings.setValue("geometry", self.saveGeometry())
        self._settings.setValue("splitter", self.splitter.saveState())
        self._settings.sync()

    def closeEvent(self, event: QCloseEvent) -> None:
        self.save_layout()
        set_failure_reporter(None)
        self.attachments.close()
        self.chat_vm.close()
        self.threads_vm.close()
        self.budget_pause.close_panel()
        self.tools_button.close_subscription()
        self.downloads.cancel()
        super().closeEvent(event)
        self.closed.emit()
