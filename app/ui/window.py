"""``MainWindow``: sidebar and chat in a splitter, header, notice bar, composer, menus and
shortcuts. It is where the window's parts are made, each with the narrow things it needs
(:meth:`MainWindow._make_parts`), placed (:meth:`MainWindow._add_widgets`) and wired
(:meth:`MainWindow._connect_signals`); the menus and shortcuts come from one table
(:meth:`MainWindow._action_table`). It holds no conversation state itself."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtGui import QAction, QCloseEvent, QGuiApplication
from PySide6.QtWidgets import (
    QMenu,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from app.core.errors import ParleyError
from app.services.agents import BUILTIN_AGENT_ID
from app.services.events import AgentsChanged, BudgetUpdated, ModelStatus
from app.services.local_server import ServerSwitch, ServeWorkspace
from app.services.threads import ThreadService
from app.services.workspace import Workspace
from app.text.hidden_chars import mark_hidden
from app.ui.a11y import announce
from app.ui.actions import ActionId, MenuId, build_menus, shortcut_rows
from app.ui.agents.part import WindowAgents
from app.ui.approvals import ApprovalController
from app.ui.attachments.mcp_offers import McpOffersButton
from app.ui.budget.pause_panel import BudgetPausePanel
from app.ui.chat.view import ChatView
from app.ui.chat.viewmodel import ChatViewModel
from app.ui.compare import CompareView, WindowCompare
from app.ui.composer import ComposerPanel
from app.ui.crash import report_unexpected
from app.ui.data_menu import DataMenu
from app.ui.dialogs import ask, shortcuts_dialog
from app.ui.dictation import Dictation
from app.ui.empty_state import EXAMPLES, EmptyState
from app.ui.header import Header
from app.ui.memory.incognito import IncognitoSwitch
from app.ui.memory.remember import RememberByHand
from app.ui.memory.used import MemoriesUsed
from app.ui.model_download import DownloadBar
from app.ui.model_picking import ModelPicking
from app.ui.notices import NoticeBar
from app.ui.notifier import Notifier
from app.ui.pending_send import PendingSend
from app.ui.read_aloud import ReadAloud
from app.ui.remedies import Remedies
from app.ui.settings.page import PageId
from app.ui.settings.services import SettingsServices
from app.ui.sidebar.viewmodel import ThreadsViewModel
from app.ui.sidebar.widget import Sidebar
from app.ui.splitter import MainSplitter, WindowLayout
from app.ui.tasks import set_failure_reporter, spawn
from app.ui.thread_files import ThreadFiles
from app.ui.tools import ToolsButton
from app.ui.voice_mode import VoiceMode
from app.ui.window_actions import window_actions
from app.ui.window_attachments import WindowAttachments
from app.ui.window_schedules import WindowSchedules
from app.ui.window_threads import ThreadCommands

if TYPE_CHECKING:
    from app.ui.settings.dialog import SettingsDialog

__all__ = ["EXAMPLES", "MainWindow"]


class MainWindow(ThreadCommands):
    """The main window (see the module docstring)."""

    closed = Signal()
    restore_requested = Signal(Path)
    """The user chose to restore this backup: whoever opened the window closes it, restores
    and opens a new one (see :func:`app.ui.app.reopen_restored`)."""

    def __init__(
        self,
        workspace: Workspace,
        *,
        settings_path: Path | None = None,
        serve: ServeWorkspace | None = None,
    ) -> None:
        super().__init__()
        self.setObjectName("mainWindow")
        self.setWindowTitle("Parley")
        self.workspace = workspace
        self.start_problem: str | None = None
        """Why the thread list could not be read at start (a damaged database), if so."""
        self._layout = WindowLayout(settings_path or workspace.data_dir / "window.ini")
        self._settings_dialog: SettingsDialog | None = None
        self.notifier = Notifier(self)
        """Where every part of the window sends what the notice bar is to say."""
        self.chat_vm = ChatViewModel(
            workspace.threads, workspace.runs, workspace.settings, workspace.events, self
        )
        self.threads_vm = ThreadsViewModel(
            workspace.threads,
            workspace.events,
            self,
            agent_names=workspace.agents.named,
            scheduled=workspace.schedules.run_threads,
        )
        self._make_widgets()
        self._make_parts()
        self.serve = serve
        """What starts the server on a workspace (a window opened again after a restore
        gets it too)."""
        self.server = ServerSwitch(
            workspace.data_dir,
            None
            if serve is None
            else lambda host, port: serve(workspace, host, port, self.approvals.decide_api),
        )
        """Settings > Server: ``parley serve`` run in this window's process while it is open."""
        self._add_widgets()
        self._connect_signals()
        self._actions = window_actions(self)
        self.own_agent = "Parley"
        """The name of the open thread's agent, as the budget meter names its share."""
        made, menus = build_menus(self, self.menuBar(), self._actions)
        self.offline_action = made[ActionId.VIEW_OFFLINE]
        made[ActionId.EDIT_DICTATE].setAutoRepeat(False)  # held down: hold to talk
        self._connect_offline(self.offline_action, menus[MenuId.VIEW])
        self.incognito = IncognitoSwitch(
            workspace.tools,
            self.chat_vm,
            self.notifier,
            made[ActionId.THREAD_INCOGNITO],
            self.header.incognito,
        )
        self.resize(1200, 800)
        self._layout.restore(self, self.splitter)
        self._set_tab_order()
        set_failure_reporter(self._report_failure)

    @property
    def thread_service(self) -> ThreadService:
        """The workspace's threads (what the thread commands act on)."""
        return self.workspace.threads

    # Making, placing and wiring the parts -------------------------------------------

    def _make_widgets(self) -> None:
        self.header = Header(self)
        self.notice = NoticeBar(self)
        self.downloads = DownloadBar(self.workspace.downloads, self.notifier, self)
        self.sidebar = Sidebar(self.threads_vm, self)
        self.chat = ChatView(self.chat_vm, self, cited_file=self.workspace.knowledge.cited_file)
        self.empty = EmptyState(self)
        self.stack = QStackedWidget(self)
        self.composer = ComposerPanel(self)
        self.compare_view = CompareView(self)
        self.budget_pause = BudgetPausePanel(self.workspace.runs, self.workspace.events, self)

    def _make_parts(self) -> None:
        workspace, chat_vm = self.workspace, self.chat_vm
        self.pending_send = PendingSend(
            self.composer, lambda: spawn(self._send(self.composer.text())), self
        )
        self.approvals = ApprovalController(
            workspace.runs,
            workspace.threads,
            workspace.models,
            chat_vm,
            self.notifier,
            self,
            agent_name=workspace.agents.stored_name,
        )
        self.attachments = WindowAttachments(
            workspace.attachments,
            chat_vm,
            self.chat,
            self.composer,
            (self.stack, self.empty),
            self.notifier,
            self,
        )
        self.chat.delegate.use_thumbnails(self.attachments.thumbs)
        self.mcp_offers = McpOffersButton(workspace.mcp, self.attachments.tray)
        self.dictation = Dictation(workspace.voice, self.composer, self)
        self.dictation.sends_on_pause = workspace.preferences.send_on_pause
        self.read_aloud = ReadAloud(workspace.voice, chat_vm, self.composer, self)
        self.read_aloud.choice = workspace.preferences.read_aloud
        self.voice_mode = VoiceMode(chat_vm, self.dictation, self.read_aloud, self)
        self.tools_button = ToolsButton(
            workspace.tools, workspace.events.subscribe, lambda: chat_vm.thread_id
        )
        self.data_actions = DataMenu(
            workspace.data, workspace.threads, workspace.settings, chat_vm, self.notifier, self
        )
        self.files = ThreadFiles(workspace.threads, self.notifier, self)
        self.agent_part = WindowAgents(
            workspace.agents,
            workspace.events.subscribe,
            workspace.models.choices,
            self.notifier,
            self,
        )
        self.remedies = Remedies(workspace.preferences, chat_vm, self.notifier, self)
        self.schedules_part = WindowSchedules(
            workspace.schedules,
            workspace.runs,
            workspace.settings,
            workspace.schedule_runner,
            self.notifier,
            self,
        )
        self.schedules_part.read_only = bool(workspace.data.read_only)
        self.memories_used = MemoriesUsed(
            workspace.memory, workspace.threads, self.open_thread, self
        )
        self.remember = RememberByHand(
            workspace.memory, workspace.tools, chat_vm, self.notifier, self
        )
        self.comparing = WindowCompare(
            workspace.compare, workspace.models.choices, workspace.threads, workspace.settings,
            chat_vm, self.notifier, self, composer=self.composer, view=self.compare_view,
            chat=self.stack, open_thread=self.open_thread,
        )  # fmt: skip
        self.models = ModelPicking(
            chat_vm,
            self.header,
            self.downloads,
            self.notifier,
            self,
            models=workspace.models,
            threads=workspace.threads,
            settings=workspace.settings,
            catalogue=workspace.downloads,
            speech=workspace.voice.models,
        )

    def _add_widgets(self) -> None:
        self.stack.addWidget(self.empty)
        self.stack.addWidget(self.chat)
        self.composer.place_attachments(self.attachments.tray.bar)
        self.composer.place_actions(
            [
                self.mcp_offers,
                self.tools_button,
                self.dictation.button,
                self.dictation.level,
                self.voice_mode.button,
            ]
        )
        column = QWidget(self)
        column.setObjectName("chatColumn")
        col = QVBoxLayout(column)
        col.setContentsMargins(0, 0, 0, 0)
        col.setSpacing(0)
        col.addWidget(self.header)
        col.addWidget(self.notice)
        col.addWidget(self.downloads)
        col.addWidget(self.stack, 1)
        col.addWidget(self.compare_view, 1)
        col.addWidget(self.approvals.keep_card)
        col.addWidget(self.approvals.banner)
        col.addWidget(self.budget_pause)
        col.addWidget(self.composer)
        self.sidebar.place_agents(self.agent_part.agent_list)
        self.header.place_badge(self.schedules_part.badge)
        self.splitter = MainSplitter(self.sidebar, column, self)
        self.setCentralWidget(self.splitter)

    def _set_tab_order(self) -> None:
        self.setTabOrder(self.sidebar.new_button, self.sidebar.search)
        self.setTabOrder(self.sidebar.search, self.sidebar.list)
        self.setTabOrder(self.sidebar.list, self.header.picker)
        self.setTabOrder(self.header.picker, self.chat)
        self.setTabOrder(self.chat, self.composer.edit)

    def _connect_signals(self) -> None:
        self.notifier.shown.connect(self.notice.show_notice)
        self._connect_chat()
        self._connect_parts()
        self._connect_header()
        self.threads_vm.problem.connect(self.remedies.show_problem)
        self.threads_vm.refreshed.connect(self._select_current)
        self.sidebar.threadActivated.connect(lambda tid: spawn(self.open_thread(tid)))
        self.sidebar.branchActivated.connect(lambda t, n: spawn(self.open_found_branch(t, n)))
        self.sidebar.newThreadRequested.connect(lambda: spawn(self.new_thread()))
        self.agent_part.threadWanted.connect(lambda aid: spawn(self.new_thread(aid)))
        self.sidebar.exportRequested.connect(lambda tid, fmt: spawn(self.export_thread(tid, fmt)))
        self.composer.sendRequested.connect(lambda text: spawn(self._send(text)))
        self.composer.stopRequested.connect(self.chat_vm.stop)
        self.composer.compareRequested.connect(lambda text: spawn(self.comparing.start(text)))
        self.composer.editLastRequested.connect(self._edit_last)
        self.composer.attachRequested.connect(self.attachments.pick)
        self.empty.chosen.connect(lambda text: spawn(self._send(text)))
        self._unsubscribe = self.workspace.events.subscribe(self._on_workspace_event)

    def _connect_chat(self) -> None:
        vm = self.chat_vm
        vm.model.modelReset.connect(self._update_stack)
        vm.model.rowsInserted.connect(self._update_stack)
        vm.model.rowsRemoved.connect(self._update_stack)
        vm.statusChanged.connect(self._on_status)
        vm.problem.connect(self.remedies.show_problem)
        vm.notice.connect(lambda text: self.notifier.show(text, timeout_ms=4000))
        vm.budgetChanged.connect(self._on_budget)
        vm.replyFinished.connect(
            lambda text: announce(self.chat, f"{self.own_agent} replied: {text}")
        )
        vm.threadOpened.connect(self.attachments.thread_opened)
        vm.threadOpened.connect(self._on_thread_opened)
        vm.threadOpened.connect(self.pending_send.thread_opened)
        vm.threadOpened.connect(self._refresh_tools)
        self.chat.editRequested.connect(self.composer.enter_edit_mode)
        self.chat.remedyRequested.connect(lambda a, t: spawn(self.remedies.run(a, t)))
        self.chat.menuFilling.connect(self.attachments.extend_menu)
        self.chat.menuFilling.connect(self.remember.extend_menu)
        self.chat.menuFilling.connect(self.read_aloud.extend_menu)
        self.chat.memoriesRequested.connect(self.memories_used.show)
        self.chat.delegate.linkActivated.connect(self.attachments.on_link)

    def _connect_parts(self) -> None:
        self.attachments.tray.changed.connect(self._attachments_changed)
        self.tools_button.problem.connect(self._warn)
        self.tools_button.settingsWanted.connect(self.open_settings)
        self.agent_part.settingsWanted.connect(self.open_settings)
        self.mcp_offers.problem.connect(self._warn)
        self.budget_pause.paused.connect(lambda e: self.header.budget.mark_paused(e.pause))
        self.downloads.downloaded.connect(
            lambda spec, title: spawn(self.models.downloaded(spec, title))
        )
        self.downloads.stopped.connect(lambda: spawn(self.models.refresh()))
        self.data_actions.closeRequested.connect(self.close)
        self.schedules_part.waitingWanted.connect(self.show_waiting)
        self.closed.connect(self.approvals.dismiss)
        self.closed.connect(self.data_actions.after_close)

    def _connect_header(self) -> None:
        header = self.header
        models = self.models
        header.modelChosen.connect(lambda spec: spawn(models.choose(spec)))
        header.downloadRequested.connect(models.download)
        header.addFileRequested.connect(lambda: spawn(models.add_file()))
        header.manageRequested.connect(lambda: spawn(models.manage()))
        self.remedies.pickModelRequested.connect(models.open_picker)
        self.remedies.settingsRequested.connect(lambda: self.open_settings())
        models.modelChanged.connect(lambda _spec: self.attachments.refresh_fit())
        header.renameRequested.connect(lambda: spawn(self.rename_thread()))
        header.network.watch(self.workspace.network)
        header.network.clicked.connect(lambda: self.open_settings(PageId.NETWORK))

    def _connect_offline(self, action: QAction, view: QMenu) -> None:
        action.setChecked(self.workspace.network.offline)
        action.toggled.connect(lambda on: spawn(self.workspace.preferences.set_offline(on)))
        view.aboutToShow.connect(self._sync_offline)

    def _warn(self, text: str) -> None:
        self.notifier.show(text, level="warning")

    def _attachments_changed(self) -> None:
        self.composer.set_attached(self.attachments.tray.has_chips())

    def _refresh_tools(self, _thread_id: str) -> None:
        self.tools_button.refresh()

    def _sync_offline(self) -> None:
        self.offline_action.blockSignals(True)
        self.offline_action.setChecked(self.workspace.network.offline)
        self.offline_action.blockSignals(False)

    # Start-up and threads ------------------------------------------------------------

    async def start(self, thread_id: str | None = None, *, preload: bool = True) -> None:
        """Fill the sidebar, open ``thread_id`` (or the latest, or a new thread), and load the
        default local model in the background."""
        try:
            await self.agent_part.refresh()
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
        await self._show_agent(thread_id)
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
        composer = self.composer
        for button in (composer.attach_button, composer.compare_button, composer.send_button):
            button.setEnabled(False)
        self.sidebar.new_button.setEnabled(False)
        self.empty.setEnabled(False)

    async def new_thread(self, agent_id: str | None = None) -> None:
        """Start a new thread with the agent ``agent_id`` (Parley when ``None``), reusing the
        open one when it is still empty."""
        if self.workspace.data.read_only:
            return
        threads, open_id = self.workspace.threads, self.chat_vm.thread_id
        if open_id and self.chat_vm.model.rowCount() == 0:
            if agent_id is not None:
                await threads.set_agent(open_id, agent_id)
                await self._after_open(open_id)
            self.composer.edit.setFocus()
            return
        thread = await threads.create(agent_id=agent_id or BUILTIN_AGENT_ID)
        await self.open_thread(thread.id)
        self.composer.edit.setFocus()

    async def _show_agent(self, thread_id: str) -> None:
        """Show the thread's agent: header, replies' author, message box, starters."""
        agent = await self.workspace.agents.for_thread(await self.workspace.threads.get(thread_id))
        self.header.show_agent(agent.name, agent.description, agent.model, own=not agent.builtin)
        self.chat.delegate.author = self.chat_vm.model.author = name = mark_hidden(agent.name)
        self.own_agent = name
        if self.chat_vm.status() == "running" and self.pending_send.thread_id is None:
            self.composer.set_hint(self._answering())  # a running thread opened: its agent
        self.chat.viewport().update()
        self.composer.address(name)
        self.empty.show_agent(None if agent.builtin else name, agent.description, agent.starters)

    # Sending -------------------------------------------------------------------------

    async def _send(self, text: str) -> None:
        if self.composer.editing is None and self.remember.typed(text):
            self.composer.accept_sent()  # kept as a memory, not sent
            return
        if self.composer.editing is not None:
            if await self.chat_vm.edit_and_resend(self.composer.editing, text):
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
        message = self.chat_vm.model.last("user")
        if message is not None:
            self.composer.enter_edit_mode(str(message.message_id), message.text())

    def copy_last_answer(self) -> None:
        """Copy the newest answer's text."""
        message = self.chat_vm.model.last("assistant", with_text=True)
        if message is not None:
            QGuiApplication.clipboard().setText(message.text())
            self.notifier.show("Copied the last answer.", timeout_ms=3000)

    async def refresh_models(self) -> None:
        """List the models the picker offers."""
        await self.models.refresh()

    # Events --------------------------------------------------------------------------

    def _on_workspace_event(self, event: object) -> None:
        if isinstance(event, AgentsChanged) and self.chat_vm.thread_id:
            spawn(self._show_agent(self.chat_vm.thread_id))
        if isinstance(event, ModelStatus):
            self.header.status.setText("Loading model…" if event.state == "loading" else "")
            if event.state not in ("loading", "ready"):
                self.notifier.show(event.text, level="error")

    def _update_stack(self, *_args: object) -> None:
        empty = self.chat_vm.model.rowCount() == 0
        self.stack.setCurrentWidget(self.empty if empty else self.chat)

    def _on_status(self, status: str) -> None:
        self.composer.set_running(status == "running")
        self.composer.set_hint(self._answering() if status == "running" else "")
        self.pending_send.status_changed(self.chat_vm.thread_id, status)
        if status not in ("running", "waiting"):
            self._show_usage()

    def _answering(self) -> str:
        return f"{self.own_agent} is answering… (Esc stops)"

    def _on_budget(self, event: BudgetUpdated) -> None:
        self.header.budget.show_run(
            event.usage, event.limits, by_agent=event.by_agent, own_agent=self.own_agent
        )

    def _show_usage(self) -> None:
        self.header.budget.show_total(self.chat_vm.model.total_tokens())

    def open_settings(self, page: PageId | None = None) -> SettingsDialog:
        """Open the settings dialog (Ctrl+,) without blocking, at ``page`` when given."""
        if self._settings_dialog is None:
            from app.ui.settings.dialog import SettingsDialog  # its pages load when first wanted

            self._settings_dialog = SettingsDialog(self._settings_services(), self)
            self.closed.connect(self._settings_dialog.close)
            data = self._settings_dialog.page(PageId.DATA)
            data.restore_requested.connect(self._restore_requested)  # type: ignore[attr-defined]
            memory = self._settings_dialog.page(PageId.MEMORY)
            memory.threadWanted.connect(self._open_memory_source)  # type: ignore[attr-defined]
            runs = self._settings_dialog.page(PageId.SCHEDULES)
            runs.threadWanted.connect(self._open_memory_source)  # type: ignore[attr-defined]
        self._settings_dialog.open_at(page)
        return self._settings_dialog

    def show_waiting(self) -> None:
        """View > Waiting for you…: the runs waiting for you, on the Schedules page."""
        self.schedules_part.show_window()
        page = self.open_settings(PageId.SCHEDULES).page(PageId.SCHEDULES)
        page.waiting.list.setFocus()  # type: ignore[attr-defined]

    def _open_memory_source(self, thread_id: str) -> None:
        if self._settings_dialog is not None:
            self._settings_dialog.close()
        spawn(self.open_thread(thread_id))

    def _settings_services(self) -> SettingsServices:
        ws = self.workspace
        return SettingsServices(
            ws.preferences,
            ws.settings,
            ws.tools,
            ws.mcp,
            ws.events,
            ws.network,
            ws.backups,
            ws.knowledge,
            ws.agents.named,
            ws.memory,
            ws.agents,
            ws.threads,
            ws.schedules,
            self.server,
            ws.voice,
            self.schedules_part,
        )

    def _restore_requested(self, backup: Path) -> None:
        if self._settings_dialog is not None:
            self._settings_dialog.close()
        self.notifier.show("Restoring the backup…", level="progress")
        self.restore_requested.emit(backup)

    def _report_failure(self, exc: BaseException) -> None:
        if not isinstance(exc, ParleyError) and report_unexpected(exc, "a window task"):
            return
        self.notifier.show(
            f"Something went wrong ({type(exc).__name__}: {str(exc)[:200]}). Your data is safe.",
            level="error",
        )

    # Window --------------------------------------------------------------------------

    def toggle_sidebar(self) -> None:
        """Collapse or expand the sidebar (Ctrl+B)."""
        self.splitter.toggle_sidebar()

    def focus_search(self) -> None:
        if self.splitter.sidebar_hidden():
            self.toggle_sidebar()
        self.sidebar.search.setFocus()
        self.sidebar.search.selectAll()

    async def show_shortcuts(self) -> None:
        """Help > Keyboard shortcuts."""
        await ask(shortcuts_dialog(self, shortcut_rows(self._actions)))

    def save_layout(self) -> None:
        """Remember the window's size, position and splitter."""
        self._layout.save(self, self.splitter)

    def closeEvent(self, event: QCloseEvent) -> None:
        if self.schedules_part.keeps_running():
            event.ignore()  # kept in the tray, running the schedules
            self.save_layout()
            self.schedules_part.hide_to_tray()
            return
        self.save_layout()
        set_failure_reporter(None)
        self.attachments.close()
        self.chat_vm.close()
        self.threads_vm.close()
        self.agent_part.close()
        self.budget_pause.close_panel()
        self.tools_button.close_subscription()
        self.downloads.cancel()
        self._unsubscribe()
        super().closeEvent(event)
        self.closed.emit()
