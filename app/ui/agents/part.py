"""``WindowAgents``: what the window does with agents — the sidebar's list kept current, the
editor for a new or changed agent, removing one, and agent files (File > Export agent…,
File > Import agent…, which shows what the file asks for and adds it only after a yes)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QLabel,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.core.errors import ParleyError
from app.services.agents import Agent, AgentImport, AgentService
from app.services.agents.file_limits import MAX_FILE_BYTES
from app.services.events import AgentsChanged, SettingsChanged, ToolsChanged, WorkspaceEvent
from app.services.models.choices import ModelChoice
from app.text.hidden_chars import mark_hidden
from app.ui.agents.list import AgentList
from app.ui.dialogs import ask, confirmation_box
from app.ui.file_dialogs import chosen_paths, file_dialog
from app.ui.notifier import Notifier
from app.ui.tasks import spawn
from app.ui.window_part import WindowPart

if TYPE_CHECKING:  # the editor's module loads when it is first opened
    from app.ui.agents.editor import AgentEditor

__all__ = ["WindowAgents", "import_dialog"]

ModelChoices = Callable[[], Awaitable[Sequence[ModelChoice]]]
"""The models an agent may be given (the picker's choices)."""


def import_dialog(parent: QWidget, plan: AgentImport) -> tuple[QDialog, QPushButton]:
    """The question an import asks (``agentImportDialog``): what the file asks for and what it
    would not get here, with **Add agent** (``addAgentButton``) and Cancel (the default)."""
    dialog = QDialog(parent)
    dialog.setObjectName("agentImportDialog")
    dialog.setWindowTitle("Import agent")
    layout = QVBoxLayout(dialog)
    about = plan.agent.description or "an agent"
    title = QLabel(f"{mark_hidden(plan.agent.name)} — {mark_hidden(about)}", dialog)
    title.setObjectName("agentImportTitle")
    title.setTextFormat(Qt.TextFormat.PlainText)
    title.setWordWrap(True)
    layout.addWidget(title)
    question = QLabel("Add this agent? It asks for:", dialog)
    layout.addWidget(question)
    asks = QLabel("\n".join(mark_hidden(a) for a in plan.asks), dialog)
    asks.setObjectName("agentImportAsks")
    asks.setTextFormat(Qt.TextFormat.PlainText)
    asks.setWordWrap(True)
    layout.addWidget(asks)
    warnings = QLabel("\n".join(mark_hidden(w) for w in plan.warnings), dialog)
    warnings.setObjectName("agentImportWarnings")
    warnings.setTextFormat(Qt.TextFormat.PlainText)
    warnings.setWordWrap(True)
    warnings.setVisible(bool(plan.warnings))
    layout.addWidget(warnings)
    buttons = QDialogButtonBox(dialog)
    add = QPushButton("Add agent", dialog)
    add.setObjectName("addAgentButton")
    buttons.addButton(add, QDialogButtonBox.ButtonRole.AcceptRole)
    cancel = buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
    cancel.setDefault(True)
    buttons.accepted.connect(dialog.accept)
    buttons.rejected.connect(dialog.reject)
    layout.addWidget(buttons)
    return dialog, add


class WindowAgents(WindowPart):
    """Agents in one window: ``agent_list`` shown in the sidebar, dialogs over ``window``."""

    threadWanted = Signal(str)
    """Start (or turn the empty open thread into) a thread with the agent of this id."""
    settingsWanted = Signal(object)
    """The editor asked for the settings page (a :class:`PageId`) that makes a tool work."""

    def __init__(
        self,
        agents: AgentService,
        subscribe: Callable[[Callable[[WorkspaceEvent], None]], Callable[[], None]],
        models: ModelChoices,
        notifier: Notifier,
        window: QWidget,
    ) -> None:
        super().__init__(window)
        self.agents = agents
        self.notifier = notifier
        self._models = models
        self.agent_list = AgentList(window)
        self.editor: AgentEditor | None = None
        """The editor while it is open."""
        self.agent_list.chosen.connect(self.threadWanted)
        self.agent_list.newRequested.connect(lambda: spawn(self.new_agent()))
        self.agent_list.editRequested.connect(lambda aid: spawn(self.edit_agent(aid)))
        self.agent_list.exportRequested.connect(lambda aid: spawn(self.export_agent(aid)))
        self.agent_list.removeRequested.connect(lambda aid: spawn(self.remove_agent(aid)))
        self._unsubscribe = subscribe(self._on_event)

    def close(self) -> None:
        """Stop following the agents."""
        self._unsubscribe()

    def _on_event(self, event: WorkspaceEvent) -> None:
        if isinstance(event, AgentsChanged):
            spawn(self.refresh())
        elif isinstance(event, (SettingsChanged, ToolsChanged)) and self.editor is not None:
            self.editor.mark_tools()  # a folder shared, online again, a server started

    async def refresh(self) -> None:
        """Show the agents as saved now."""
        self.agent_list.show_agents(await self.agents.list())

    # The editor ----------------------------------------------------------------------

    async def _open_editor(self, agent: Agent | None) -> Agent | None:
        from app.ui.agents.editor import AgentEditor  # loaded when first opened

        try:
            models = [(c.label, c.spec) for c in await self._models() if c.available]
        except (OSError, ParleyError):
            models = []
        await self.agents.list()
        rules = await self.agents.rules_of(agent) if agent is not None else []
        self.editor = AgentEditor(
            self.agents, agent=agent, models=models, rules=rules, parent=self.over()
        )
        self.editor.settingsWanted.connect(self.settingsWanted)
        try:
            await ask(self.editor)
            return self.editor.saved
        finally:
            self.editor.deleteLater()
            self.editor = None

    async def new_agent(self) -> Agent | None:
        """Open the editor for a new agent; the agent when it was saved."""
        saved = await self._open_editor(None)
        if saved is not None:
            self.notifier.show(f"Added the agent {saved.name}.", timeout_ms=3000)
        return saved

    async def edit_agent(self, agent_id: str) -> Agent | None:
        """Open the editor on the agent ``agent_id``; the agent when it was saved."""
        agent = await self.agents.by_id(agent_id)
        if agent is None or agent.builtin:
            return None
        return await self._open_editor(agent)

    async def remove_agent(self, agent_id: str) -> bool:
        """Ask, then remove the agent; its threads go on with Parley."""
        agent = await self.agents.by_id(agent_id)
        if agent is None or agent.builtin:
            return False
        box, _button = confirmation_box(
            self.over(),
            "removeAgentBox",
            "Remove agent",
            f"Remove the agent {mark_hidden(agent.name)}?",
            "Its threads stay and go on with Parley.",
            ("Remove", "removeAgentButton", QMessageBox.ButtonRole.DestructiveRole),
        )
        box.setTextFormat(Qt.TextFormat.PlainText)
        await ask(box)
        if box.clickedButton() is not _button:
            return False
        try:
            await self.agents.remove(agent_id)
        except ParleyError as exc:
            self.notifier.show(str(exc), level="error")
            return False
        self.notifier.show(f"Removed the agent {agent.name}.", timeout_ms=3000)
        return True

    # Files ---------------------------------------------------------------------------

    async def export_agent(self, agent_id: str, path: Path | None = None) -> Path | None:
        """Ask where (unless ``path`` is given), then write ``NAME.agent.json``."""
        agent = await self.agents.by_id(agent_id)
        if agent is None:
            return None
        if agent.builtin:
            self.notifier.show("Parley is built in; export an agent you made.", level="warning")
            return None
        if path is None:
            dialog = file_dialog(self.over(), "Export agent", "exportAgentDialog")
            dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
            dialog.setNameFilters(["Parley agent (*.agent.json)"])
            dialog.selectFile(self.agents.file_name(agent))
            chosen = await chosen_paths(dialog)
            if not chosen:
                return None
            path = Path(chosen[0])
        try:
            data, notes = await self.agents.export(agent)
        except ParleyError as exc:
            self.notifier.show(f"Could not export {agent.name}: {exc}", level="error")
            return None
        try:
            await asyncio.to_thread(path.write_bytes, data)
        except OSError as exc:
            self.notifier.show(f"Could not export to {path}: {exc.strerror or exc}", level="error")
            return None
        if notes:
            self.notifier.show(
                f"Exported {agent.name} to {path}. " + " ".join(notes), level="warning"
            )
        else:
            self.notifier.show(f"Exported {agent.name} to {path}.", timeout_ms=5000)
        return path

    async def export_chosen(self) -> Path | None:
        """Export the agent chosen in the list (File > Export agent…)."""
        agent_id = self.agent_list.current_id()
        if agent_id is None:
            self.notifier.show("Choose an agent in the sidebar to export.", level="warning")
            return None
        return await self.export_agent(agent_id)

    async def import_agent(self, path: Path | None = None) -> Agent | None:
        """Ask for an agent file (unless ``path`` is given), show what it asks for, and add it
        after a yes; a file that cannot be one is said in one sentence."""
        if path is None:
            picker = file_dialog(self.over(), "Import agent", "importAgentFileDialog")
            picker.setFileMode(QFileDialog.FileMode.ExistingFile)
            picker.setNameFilters(["Parley agent (*.agent.json *.json)", "All files (*)"])
            chosen = await chosen_paths(picker)
            if not chosen:
                return None
            path = Path(chosen[0])
        try:
            data = await asyncio.to_thread(_read_capped, path)
            plan = await self.agents.read_file(data)
        except (OSError, ParleyError) as exc:
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            self.notifier.show(f"Could not import {path.name}: {why}", level="error")
            return None
        if plan.refusal is not None:
            self.notifier.show(f"Could not import {path.name}: {plan.refusal}", level="error")
            return None
        question, _add = import_dialog(self.over(), plan)
        if await ask(question) != QDialog.DialogCode.Accepted:
            return None
        try:
            agent = await self.agents.import_agent(plan)
        except ParleyError as exc:
            self.notifier.show(f"Could not import {path.name}: {exc}", level="error")
            return None
        self.notifier.show(f"Added the agent {agent.name}.", timeout_ms=3000)
        return agent


def _read_capped(path: Path) -> bytes:
    """The file's bytes, no more than one past the most an agent file may be."""
    with path.open("rb") as file:
        return file.read(MAX_FILE_BYTES + 1)
