"""Settings > Tools: the folders the file tools may work in, and whether the web tools may
reach this computer and the local network. A change is saved at once."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.core.errors import ParleyError
from app.services.settings.store import SettingsStore
from app.services.workspace_tools import WorkspaceTools
from app.ui.file_dialogs import ask_folder
from app.ui.settings._labels import error_label, heading, hint, section
from app.ui.settings.page import SettingsPage
from app.ui.tasks import spawn

__all__ = ["ToolsPage"]


class ToolsPage(SettingsPage):
    """Granted folders (add with a folder dialog, remove) and the network policy."""

    TITLE = "Tools"
    OBJECT_NAME = "toolsSettingsPage"

    def __init__(
        self, settings: SettingsStore, tools: WorkspaceTools, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.settings = settings
        self.tools = tools
        self._build_folders()
        self._build_network()
        self._lay_out()
        self._show(self.settings.current.granted_folders)

    def _build_folders(self) -> None:
        self._title = heading("Folders the file tools may use", self)
        self._intro = hint(
            "The file tools (list, read, search and write files) work only inside these "
            "folders; every other path is refused. Writing a file always asks you first.",
            self,
        )
        self.folders = QListWidget(self)
        self.folders.setObjectName("grantedFolders")
        self.folders.setAccessibleName("Granted folders")
        self.folders.setSpacing(3)
        self.folders.currentRowChanged.connect(self._update_buttons)
        self.empty = hint("No folder is granted yet, so the file tools refuse every path.", self)
        self.add_button = QPushButton("Add folder…", self)
        self.add_button.setObjectName("addFolderButton")
        self.add_button.setAccessibleName("Add a granted folder")
        self.add_button.clicked.connect(lambda: spawn(self.choose_folder()))
        self.remove_button = QPushButton("Remove", self)
        self.remove_button.setObjectName("removeFolderButton")
        self.remove_button.setAccessibleName("Remove the selected folder")
        self.remove_button.clicked.connect(lambda: spawn(self.remove_selected()))

    def _build_network(self) -> None:
        self._net_heading = section("Network", self)
        self.private_network = QCheckBox(
            "Let the web tools reach this computer and my local network", self
        )
        self.private_network.setObjectName("allowPrivateNetwork")
        self.private_network.setAccessibleName(
            "Let the web tools reach this computer and the local network"
        )
        self.private_network.toggled.connect(lambda on: spawn(self._set_network(on)))
        self._net_hint = hint(
            "Off by default: fetch_url and http_request reach only public addresses, so a page "
            "cannot make Parley probe your router or local services. Each fetch asks you first.",
            self,
        )
        self.error = error_label(self)

    def _lay_out(self) -> None:
        buttons = QHBoxLayout()
        buttons.setSpacing(8)
        buttons.addWidget(self.add_button)
        buttons.addWidget(self.remove_button)
        buttons.addStretch(1)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)  # as every page: the dialog gives the room
        layout.setSpacing(8)
        layout.addWidget(self._title)
        layout.addWidget(self._intro)
        layout.addWidget(self.folders, 1)
        layout.addWidget(self.empty)
        layout.addLayout(buttons)
        layout.addSpacing(16)
        layout.addWidget(self._net_heading)
        layout.addWidget(self.private_network)
        layout.addWidget(self._net_hint)
        layout.addWidget(self.error)
        layout.addStretch(0)

    async def load(self) -> None:
        """Show the granted folders and the network policy from the settings."""
        self._show(self.settings.current.granted_folders)

    def _show(self, folders: list[str]) -> None:
        current = self.folders.currentItem()
        keep = current.text() if current is not None else None
        self.folders.clear()
        for folder in folders:
            item = QListWidgetItem(folder, self.folders)
            item.setToolTip(folder)
            if folder == keep:
                self.folders.setCurrentItem(item)
        self.empty.setVisible(not folders)
        self.folders.setVisible(bool(folders))
        self.private_network.blockSignals(True)
        self.private_network.setChecked(self.settings.current.allow_private_network)
        self.private_network.blockSignals(False)
        self._update_buttons()

    def _update_buttons(self, *_args: object) -> None:
        self.remove_button.setEnabled(self.folders.currentItem() is not None)

    def _say(self, text: str) -> None:
        self.error.setText(text)
        self.error.setVisible(bool(text))

    async def choose_folder(self) -> None:
        """Ask for a folder with the folder dialog and grant it."""
        folder = await ask_folder(self, "Grant a folder to the file tools", "grantFolderDialog")
        if folder is not None:
            await self.add_folder(folder)

    async def add_folder(self, folder: str) -> None:
        """Grant ``folder``; a folder that is not there is refused with a sentence."""
        try:
            folders = await self.tools.grant_folder(folder)
        except (OSError, ParleyError) as exc:
            self._say(f"Could not grant {folder}: {exc}")
            return
        self._say("")
        self._show(folders)
        match = self.folders.findItems(folders[-1], Qt.MatchFlag.MatchExactly)
        if match:
            self.folders.setCurrentItem(match[0])

    async def remove_selected(self) -> None:
        """Stop granting the selected folder."""
        item = self.folders.currentItem()
        if item is None:
            return
        try:
            folders = await self.tools.revoke_folder(item.text())
        except (OSError, ParleyError) as exc:
            self._say(f"Could not remove {item.text()}: {exc}")
            return
        self._say("")
        self._show(folders)

    async def _set_network(self, allowed: bool) -> None:
        try:
            await self.tools.set_private_network(allowed)
        except (OSError, ParleyError) as exc:
            self._say(f"Could not change the network setting: {exc}")
            self._show(self.settings.current.granted_folders)
            return
        self._say("")
