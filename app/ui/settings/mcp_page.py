"""Settings > MCP servers: the configured servers with their state, their tools and, for one
that failed, why; add, edit and remove stdio servers and switch each on or off. A change is
saved at once and the servers restart in the background."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.core.errors import ParleyError
from app.services.workspace import Workspace
from app.services.workspace_tools import ServerInfo, ToolsChanged
from app.ui.dialogs import ask
from app.ui.settings._labels import error_label, heading, hint
from app.ui.settings._mcp_dialog import ServerDialog
from app.ui.settings.page import SettingsPage
from app.ui.tasks import spawn

__all__ = ["McpPage"]

_STATES = {
    "running": "Running",
    "starting": "Starting…",
    "failed": "Not running",
    "crashed": "Crashed, restarting",
    "stopped": "Stopped",
    "disabled": "Off",
    "invalid": "Cannot be used",
}


class McpPage(SettingsPage):
    """The MCP servers page (see the module docstring)."""

    TITLE = "MCP servers"
    OBJECT_NAME = "mcpSettingsPage"

    def __init__(self, workspace: Workspace, parent: QWidget | None = None) -> None:
        super().__init__(workspace, parent)
        self.infos: list[ServerInfo] = []
        title = heading("MCP servers", self)
        intro = hint(
            "Programs that give Parley more tools. Their tools appear in each thread's Tools "
            "menu; a tool that changes things asks you before it runs.",
            self,
        )
        self.list = QListWidget(self)
        self.list.setObjectName("mcpServerList")
        self.list.setAccessibleName("MCP servers")
        self.list.setSpacing(4)
        self.list.currentRowChanged.connect(self._show_selected)
        self.empty = hint(
            "No server yet. Add one with its command, e.g. uvx mcp-server-time.", self
        )

        self.add_button = QPushButton("Add…", self)
        self.add_button.setObjectName("addServerButton")
        self.add_button.setAccessibleName("Add an MCP server")
        self.add_button.clicked.connect(lambda: spawn(self.add_server()))
        self.edit_button = QPushButton("Edit…", self)
        self.edit_button.setObjectName("editServerButton")
        self.edit_button.setAccessibleName("Edit the selected server")
        self.edit_button.clicked.connect(lambda: spawn(self.edit_server()))
        self.remove_button = QPushButton("Remove", self)
        self.remove_button.setObjectName("removeServerButton")
        self.remove_button.setAccessibleName("Remove the selected server")
        self.remove_button.clicked.connect(lambda: spawn(self.remove_selected()))

        self.enabled = QCheckBox("Use this server", self)
        self.enabled.setObjectName("mcpServerEnabled")
        self.enabled.toggled.connect(lambda on: spawn(self._set_enabled(on)))
        self.state = QLabel("", self)
        self.state.setObjectName("mcpServerState")
        font = self.state.font()
        font.setBold(True)
        self.state.setFont(font)
        self.command = hint("", self)
        self.command.setObjectName("mcpServerCommandLine")
        self.command.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.reason = error_label(self)
        self.reason.setObjectName("mcpServerReason")
        self.tools = QListWidget(self)
        self.tools.setObjectName("mcpServerTools")
        self.tools.setAccessibleName("The server's tools")
        self.tools.setSpacing(2)
        self.error = error_label(self)

        buttons = QHBoxLayout()
        buttons.setSpacing(8)
        for button in (self.add_button, self.edit_button, self.remove_button):
            buttons.addWidget(button)
        buttons.addStretch(1)

        details = QVBoxLayout()
        details.setSpacing(8)
        details.addWidget(self.enabled)
        details.addWidget(self.state)
        details.addWidget(self.command)
        details.addWidget(self.reason)
        details.addWidget(self.tools, 1)

        lists = QHBoxLayout()
        lists.setSpacing(16)
        lists.addWidget(self.list, 2)
        lists.addLayout(details, 3)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 16, 16, 16)
        layout.setSpacing(8)
        layout.addWidget(title)
        layout.addWidget(intro)
        layout.addWidget(self.empty)
        layout.addLayout(lists, 1)
        layout.addLayout(buttons)
        layout.addWidget(self.error)
        unsubscribe = workspace.subscribe(self._on_event)
        self.destroyed.connect(lambda *_: unsubscribe())
        self._fill([])

    async def load(self) -> None:
        """Show the configured servers as they are now."""
        try:
            infos = await self.workspace.tools.servers()
        except (OSError, ParleyError) as exc:
            self._say(str(exc))
            return
        self._fill(infos)

    def _on_event(self, event: object) -> None:
        if isinstance(event, ToolsChanged):
            spawn(self.load())

    def _say(self, text: str) -> None:
        self.error.setText(text)
        self.error.setVisible(bool(text))

    def selected(self) -> ServerInfo | None:
        """The server selected in the list."""
        row = self.list.currentRow()
        return self.infos[row] if 0 <= row < len(self.infos) else None

    def _fill(self, infos: list[ServerInfo]) -> None:
        current = self.selected()
        keep = current.name if current else None
        self.infos = infos
        self.list.blockSignals(True)
        self.list.clear()
        for info in infos:
            count = f" · {len(info.tools)} tools" if info.state == "running" else ""
            item = QListWidgetItem(f"{info.name}\n{_STATES.get(info.state, info.state)}{count}")
            item.setToolTip(f"{info.command} {' '.join(info.args)}".strip())
            self.list.addItem(item)
        self.list.blockSignals(False)
        names = [i.name for i in infos]
        if infos:
            self.list.setCurrentRow(names.index(keep) if keep in names else 0)
        self.empty.setVisible(not infos)
        self._show_selected()

    def _show_selected(self, *_args: object) -> None:
        info = self.selected()
        for widget in (self.edit_button, self.remove_button, self.enabled, self.tools):
            widget.setEnabled(info is not None)
        self.tools.clear()
        if info is None:
            self.state.setText("")
            self.command.setText("")
            self.reason.hide()
            return
        self.enabled.blockSignals(True)
        self.enabled.setChecked(info.enabled)
        self.enabled.blockSignals(False)
        self.enabled.setEnabled(info.state != "invalid")
        self.state.setText(_STATES.get(info.state, info.state))
        self.command.setText(" ".join([info.command, *info.args]))
        self.reason.setText(info.reason or "")
        self.reason.setVisible(bool(info.reason))
        for tool in info.tools:
            item = QListWidgetItem(f"{tool.label} — {tool.description}", self.tools)
            item.setToolTip(tool.description)
        if not info.tools:
            note = "Its tools show here once it runs." if info.enabled else "It is off."
            QListWidgetItem(note, self.tools).setFlags(Qt.ItemFlag.NoItemFlags)

    async def add_server(self) -> None:
        """Open the add-server dialog; the list refreshes when it was saved."""
        if await ask(ServerDialog(self.workspace, None, self)):
            await self.load()

    async def edit_server(self) -> None:
        """Open the selected server in the dialog."""
        info = self.selected()
        if info is not None and await ask(ServerDialog(self.workspace, info, self)):
            await self.load()

    async def remove_selected(self) -> None:
        """Remove the selected server (it stops)."""
        info = self.selected()
        if info is None:
            return
        try:
            await self.workspace.tools.remove_server(info.name)
        except (OSError, ParleyError) as exc:
            self._say(f"Could not remove {info.name}: {exc}")
            return
        self._say("")
        await self.load()

    async def _set_enabled(self, on: bool) -> None:
        info = self.selected()
        if info is None:
            return
        try:
            await self.workspace.tools.set_server_enabled(info.name, on)
        except (OSError, ParleyError) as exc:
            self._say(f"Could not change {info.name}: {exc}")
            return
        self._say("")
        await self.load()
