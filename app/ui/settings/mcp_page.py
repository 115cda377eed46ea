"""Settings > MCP servers: the configured servers with their state, their tools and, for one
that failed, why; add, edit and remove servers (a command or a streamable-HTTP address),
import another app's ``mcpServers`` file, test a server, switch each on or off and set what
the server and each of its tools may do (allowed, ask first, off). A change is saved at once;
a policy applies to the next call without restarting the server."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.core.errors import ParleyError
from app.services.bus import EventBus
from app.services.events import ToolsChanged, WorkspaceEvent
from app.services.mcp.actions import (
    DEFAULT_POLICY,
    import_servers,
    probe_server,
    read_servers_file,
    set_policy,
    tool_policies,
)
from app.services.mcp.importing import ImportReport, shown_name
from app.services.mcp.service import McpService
from app.services.workspace_tools import ServerInfo
from app.ui.dialogs import ask
from app.ui.file_dialogs import chosen_paths, file_dialog
from app.ui.settings._labels import error_label, heading, hint
from app.ui.settings._mcp_dialog import TEST_TIMEOUT, ServerDialog, tested
from app.ui.settings._mcp_import_dialog import ClaimsDialog
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

POLICIES: dict[str, str] = {"allowed": "Allowed", "approval": "Ask first", "off": "Off"}
"""What a tool may do, as the page names it."""


def import_summary(report: ImportReport) -> str:
    """A few sentences saying what an import added, held back and skipped, and why."""
    parts = []
    if report.added:
        parts.append(f"Added {len(report.added)}: {', '.join(report.added)}.")
    else:
        parts.append("Nothing was added.")
    if report.skipped:
        skipped = "; ".join(f"{shown_name(name)} ({why})" for name, why in report.skipped.items())
        parts.append(f"Skipped {len(report.skipped)}: {skipped}.")
    if report.held:
        held = "; ".join(f"{name} ({'; '.join(why)})" for name, why in report.held.items())
        parts.append(f"Held back {len(report.held)}: {held}.")
    return " ".join(parts)


def _policy_box(parent: QWidget, name: str, first: str, chosen: str | None) -> QComboBox:
    box = QComboBox(parent)
    box.setObjectName(name)
    box.addItem(first, None)
    for key, label in POLICIES.items():
        box.addItem(label, key)
    box.setCurrentIndex(max(0, box.findData(chosen)) if chosen else 0)
    return box


class McpPage(SettingsPage):
    """The MCP servers page (see the module docstring)."""

    TITLE = "MCP servers"
    OBJECT_NAME = "mcpSettingsPage"

    def __init__(self, mcp: McpService, events: EventBus, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.mcp = mcp
        self.infos: list[ServerInfo] = []
        self._build_list()
        self._build_server_buttons()
        self._build_details()
        self._build_import()
        self._lay_out()
        unsubscribe = events.subscribe(self._on_event)
        self.destroyed.connect(lambda *_: unsubscribe())
        self._fill([])

    def _build_list(self) -> None:
        self.list = QListWidget(self)
        self.list.setObjectName("mcpServerList")
        self.list.setAccessibleName("MCP servers")
        self.list.setSpacing(4)
        self.list.currentRowChanged.connect(self._show_selected)
        self.empty = hint(
            "No server yet. Add one with its command, e.g. uvx mcp-server-time.", self
        )

    def _build_server_buttons(self) -> None:
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

    def _build_details(self) -> None:
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
        self.policy = _policy_box(self, "mcpServerPolicy", "Each tool's default", None)
        self.policy.setAccessibleName("What the server's tools may do")
        self.policy.activated.connect(lambda _i: spawn(self._set_server_policy()))
        self.tools = QTreeWidget(self)
        self.tools.setObjectName("mcpServerTools")
        self.tools.setAccessibleName("The server's tools")
        self.tools.setHeaderLabels(["Tool", "Suggested", "May"])
        self.tools.setRootIsDecorated(False)
        self.tools.setColumnWidth(0, 150)
        self.tools.setColumnWidth(1, 80)
        self.test_button = QPushButton("Test connection", self)
        self.test_button.setObjectName("testServerButton")
        self.test_button.setAccessibleName("Start the selected server and list its tools")
        self.test_button.clicked.connect(lambda: spawn(self.test_selected()))
        self.test_result = hint("", self)
        self.test_result.setObjectName("mcpTestResult")

    def _build_import(self) -> None:
        self.import_button = QPushButton("Import…", self)
        self.import_button.setObjectName("importServersButton")
        self.import_button.setAccessibleName("Import another app's mcpServers file")
        self.import_button.clicked.connect(lambda: spawn(self.choose_import()))
        self.summary = hint("", self)
        self.summary.setObjectName("mcpImportSummary")
        self.summary.setTextFormat(Qt.TextFormat.PlainText)  # it quotes a file's names
        self.summary.hide()
        self.error = error_label(self)

    def _lay_out(self) -> None:
        title = heading("MCP servers", self)
        intro = hint(
            "Programs that give Parley more tools. Their tools appear in each thread's Tools "
            "menu; each asks you before it runs until you allow it here. A server Parley "
            "starts as a program is a program of its own: offline mode covers Parley's "
            "connections, not that program's.",
            self,
        )
        buttons = QHBoxLayout()
        buttons.setSpacing(8)
        for button in (self.add_button, self.edit_button, self.remove_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        buttons.addWidget(self.import_button)

        details = QVBoxLayout()
        details.setSpacing(8)
        details.addWidget(self.enabled)
        details.addWidget(self.state)
        details.addWidget(self.command)
        details.addWidget(self.reason)
        test_row = QHBoxLayout()
        test_row.addWidget(self.test_button)
        test_row.addWidget(self.test_result, 1)
        details.addLayout(test_row)
        policy_row = QHBoxLayout()
        policy_row.addWidget(QLabel("Its tools:", self))
        policy_row.addWidget(self.policy, 1)
        details.addLayout(policy_row)
        details.addWidget(self.tools, 1)

        lists = QHBoxLayout()
        lists.setSpacing(16)
        lists.addWidget(self.list, 2)
        lists.addLayout(details, 3)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)  # as every page: the dialog gives the room
        layout.setSpacing(8)
        layout.addWidget(title)
        layout.addWidget(intro)
        layout.addWidget(self.empty)
        layout.addLayout(lists, 1)
        layout.addLayout(buttons)
        layout.addWidget(self.summary)
        layout.addWidget(self.error)

    async def load(self) -> None:
        """Show the configured servers as they are now."""
        try:
            infos = await self.mcp.servers()
        except (OSError, ParleyError) as exc:
            self._say(str(exc))
            return
        self._fill(infos)

    def _on_event(self, event: WorkspaceEvent) -> None:
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
        for widget in (
            self.edit_button,
            self.remove_button,
            self.enabled,
            self.tools,
            self.policy,
            self.test_button,
        ):
            widget.setEnabled(info is not None)
        self.tools.clear()
        if info is None:
            self.state.setText("")
            self.command.setText("")
            self.test_result.setText("")
            self.reason.hide()
            return
        if info.name != self.test_result.property("server"):
            self.test_result.setText("")
        self.enabled.blockSignals(True)
        self.enabled.setChecked(info.enabled)
        self.enabled.blockSignals(False)
        self.enabled.setEnabled(info.state != "invalid")
        self.state.setText(_STATES.get(info.state, info.state))
        self.command.setText(" ".join([info.command, *info.args]))
        self.reason.setText(info.reason or "")
        self.reason.setVisible(bool(info.reason))
        self.policy.setCurrentIndex(max(0, self.policy.findData(info.policy)))
        self.policy.setEnabled(info.state != "invalid")
        self.test_button.setEnabled(info.state != "invalid")
        server_default = POLICIES.get(info.policy or "", "")
        rows = tool_policies(self.mcp, info.name)
        for row in rows:
            item = QTreeWidgetItem(self.tools, [row.name, POLICIES[row.suggested], ""])
            item.setToolTip(0, row.description)
            item.setToolTip(
                1,
                "What the server says of the tool (read-only or not). It is the server's "
                "claim: the tool asks first until you choose.",
            )
            first = f"As the server ({server_default or POLICIES[DEFAULT_POLICY]})"
            box = _policy_box(self.tools, f"mcpToolPolicy:{row.name}", first, row.chosen)
            box.setAccessibleName(f"What {row.name} may do")
            box.activated.connect(
                lambda _i, tool=row.name, b=box: spawn(self._set_tool_policy(tool, b.currentData()))
            )
            self.tools.setItemWidget(item, 2, box)
        if not rows:
            note = "Its tools show here once it runs." if info.enabled else "It is off."
            QTreeWidgetItem(self.tools, [note]).setFlags(Qt.ItemFlag.NoItemFlags)

    async def _set_server_policy(self) -> None:
        info = self.selected()
        if info is not None:
            await self._apply(info.name, self.policy.currentData(), None)

    async def _set_tool_policy(self, tool: str, policy: str | None) -> None:
        info = self.selected()
        if info is not None:
            await self._apply(info.name, policy, tool)

    async def _apply(self, server: str, policy: object, tool: str | None) -> None:
        chosen = policy if policy in POLICIES else None
        try:
            await set_policy(self.mcp, server, chosen, tool)  # type: ignore[arg-type]
        except (OSError, ParleyError) as exc:
            self._say(f"Could not change {server}: {exc}")
            return
        self._say("")

    async def test_selected(self) -> None:
        """Start the selected server on its own, list its tools and say how it went."""
        info = self.selected()
        if info is None:
            return
        self.test_button.setEnabled(False)
        self.test_result.setProperty("server", info.name)
        self.test_result.setText("Starting the server…")
        try:
            server = self.mcp.config.get(info.name)
            names = await probe_server(self.mcp, server, limit=TEST_TIMEOUT)
        except (OSError, ParleyError) as exc:
            text = str(exc)
            self.test_result.setText(f"Failed: {text[:1].upper()}{text[1:]}")
        else:
            self.test_result.setText(tested(names))
        finally:
            self.test_button.setEnabled(True)

    async def choose_import(self) -> None:
        """Ask for another app's ``mcpServers`` file and import it."""
        dialog = file_dialog(self, "Import MCP servers", "mcpImportDialog")
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        dialog.setNameFilters(["JSON files (*.json)", "All files (*)"])
        chosen = await chosen_paths(dialog)
        if chosen:
            await self.import_file(chosen[0])

    async def import_file(self, path: str) -> None:
        """Add the servers of ``path`` and say what was added, held back and skipped; servers
        that claim more than their own are added only if the user says yes to each claim."""
        try:
            plan = await read_servers_file(path)
            trust = bool(plan.claims) and bool(await ask(ClaimsDialog(plan.claims, self)))
            report = await import_servers(self.mcp, plan, trust=trust)
        except (OSError, ParleyError) as exc:
            self.summary.hide()
            text = str(exc)
            self._say(f"Nothing was imported: {text}")
            return
        self._say("")
        self.summary.setText(import_summary(report))
        self.summary.show()
        await self.load()

    async def add_server(self) -> None:
        """Open the add-server dialog; the list refreshes when it was saved."""
        if await ask(ServerDialog(self.mcp, None, self)):
            await self.load()

    async def edit_server(self) -> None:
        """Open the selected server in the dialog."""
        info = self.selected()
        if info is not None and await ask(ServerDialog(self.mcp, info, self)):
            await self.load()

    async def remove_selected(self) -> None:
        """Remove the selected server (it stops)."""
        info = self.selected()
        if info is None:
            return
        try:
            await self.mcp.remove_server(info.name)
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
            await self.mcp.set_server_enabled(info.name, on)
        except (OSError, ParleyError) as exc:
            self._say(f"Could not change {info.name}: {exc}")
            return
        self._say("")
        await self.load()
