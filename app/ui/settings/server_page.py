"""Settings > Server (``serverPage``): ``parley serve`` run inside the window while it is open.

``serverSwitch`` turns it on and off; the address it answers at is shown (``serverAddress``),
this computer only unless another address is typed in ``serverHost`` (then with a warning,
and only once a key exists). ``serverKeys`` lists the keys clients send, with their daily
token limits, today's tokens and whether its agents' runs are kept as threads (marked API
in the sidebar); Add key… makes one and shows it once in a dialog with Copy
(``serverKeyDialog``), Remove takes one away at once. An agent's call through the API that
needs approval is asked in the window's own approval dialog.
"""

from __future__ import annotations

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.core.errors import ParleyError
from app.core.netgate import is_local_host
from app.services.local_server import DEFAULT_HOST, DEFAULT_PORT, ServerSwitch
from app.ui.dialogs import ask
from app.ui.settings._form import page_layout, result_label, rows_table
from app.ui.settings.page import SettingsPage
from app.ui.tasks import spawn

__all__ = ["KEY_COLUMNS", "KeyDialog", "NewKeyDialog", "ServerPage"]

KEY_COLUMNS = ["Key", "Daily limit", "Used today", "Threads"]


class NewKeyDialog(QDialog):
    """Asks a new key's name, its daily token limit (0: none) and whether its agents' runs
    are kept as threads."""

    def __init__(self, parent: QWidget | None) -> None:
        super().__init__(parent)
        self.setObjectName("serverNewKeyDialog")
        self.setWindowTitle("Add a key")
        self.name = QLineEdit(self)
        self.name.setObjectName("serverKeyName")
        self.name.setPlaceholderText("e.g. ci-bot")
        self.name.setAccessibleName("The key's name")
        self.limit = QSpinBox(self)
        self.limit.setObjectName("serverKeyLimit")
        self.limit.setRange(0, 1_000_000_000)
        self.limit.setSingleStep(10_000)
        self.limit.setSpecialValueText("no limit")
        self.limit.setAccessibleName("Tokens the key may use a day (0: no limit)")
        self.no_threads = QCheckBox("Keep no threads of the agents' runs it asks for", self)
        self.no_threads.setObjectName("serverKeyNoThreads")
        form = QFormLayout()
        form.addRow("Name", self.name)
        form.addRow("Tokens a day", self.limit)
        form.addRow(self.no_threads)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(buttons)


class KeyDialog(QDialog):
    """Shows a key just made, once, with Copy."""

    def __init__(self, parent: QWidget | None, name: str, key: str) -> None:
        super().__init__(parent)
        self.setObjectName("serverKeyDialog")
        self.setWindowTitle(f"Key {name}")
        said = QLabel(
            f"This is key {name}. It is shown only now: copy it into the program that will "
            "use it, which sends it as Authorization: Bearer KEY (or x-api-key).",
            self,
        )
        said.setWordWrap(True)
        self.key = QLineEdit(key, self)
        self.key.setObjectName("serverKeyValue")
        self.key.setReadOnly(True)
        self.key.setAccessibleName(f"Key {name}")
        self.copy = QPushButton("Copy", self)
        self.copy.setObjectName("serverKeyCopyButton")
        self.copy.clicked.connect(self._copy)
        row = QHBoxLayout()
        row.addWidget(self.key, 1)
        row.addWidget(self.copy)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.accept)
        layout = QVBoxLayout(self)
        layout.addWidget(said)
        layout.addLayout(row)
        layout.addWidget(buttons)
        self.resize(560, 0)

    def _copy(self) -> None:
        QGuiApplication.clipboard().setText(self.key.text())
        self.copy.setText("Copied")


class ServerPage(SettingsPage):
    """See the module docstring."""

    TITLE = "Server"
    OBJECT_NAME = "serverPage"

    def __init__(self, server: ServerSwitch, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.server = server
        layout = page_layout(
            self,
            self.TITLE,
            "Serve your models and agents to other programs (editors, scripts, other agents) "
            "on OpenAI- and Anthropic-compatible APIs while this window is open. Each request "
            "needs a key; an agent's call that needs approval is asked here.",
        )
        self.switch = QCheckBox("Serve while Parley is open", self)
        self.switch.setObjectName("serverSwitch")
        self.host = QLineEdit(DEFAULT_HOST, self)
        self.host.setObjectName("serverHost")
        self.host.setAccessibleName("The address to listen on")
        self.port = QSpinBox(self)
        self.port.setObjectName("serverPort")
        self.port.setRange(0, 65535)
        self.port.setValue(DEFAULT_PORT)
        self.port.setAccessibleName("The port to listen on")
        where = QHBoxLayout()
        for text, field, stretch in (("&Address", self.host, 1), ("P&ort", self.port, 0)):
            label = QLabel(text, self)
            label.setBuddy(field)
            where.addWidget(label)
            where.addWidget(field, stretch)
        self.address = result_label(self, "serverAddress")
        self.warning = result_label(self, "serverWarning")
        self.keys = rows_table(self, "serverKeys", "The server's keys", KEY_COLUMNS, 0)
        self.add = QPushButton("Add key…", self)
        self.add.setObjectName("serverAddKeyButton")
        self.remove = QPushButton("Remove", self)
        self.remove.setObjectName("serverRemoveKeyButton")
        buttons = QHBoxLayout()
        buttons.addWidget(self.add)
        buttons.addWidget(self.remove)
        buttons.addStretch(1)
        self.message = result_label(self, "serverMessage")
        layout.addWidget(self.switch)
        layout.addLayout(where)
        layout.addWidget(self.address)
        layout.addWidget(self.warning)
        layout.addWidget(self.keys, 1)
        layout.addLayout(buttons)
        layout.addWidget(self.message)
        self.dialog: QDialog | None = None
        """The key dialog open now, if one is (for tests and screenshots)."""
        self.switch.toggled.connect(lambda on: spawn(self.set_serving(on)))
        self.host.textChanged.connect(self._warn)
        self.add.clicked.connect(lambda: spawn(self.add_key()))
        self.remove.clicked.connect(lambda: spawn(self.remove_key()))
        self._show_state()

    # Serving -------------------------------------------------------------------------

    def _warn(self, *_args: object) -> None:
        host = self.host.text().strip()
        self.warning.setText(
            ""
            if not host or is_local_host(host)
            else f"Serving on {host} lets other computers that reach it use your models and "
            "agents with a key."
        )

    def _show_state(self) -> None:
        address = self.server.address
        self.switch.blockSignals(True)
        self.switch.setChecked(address is not None)
        self.switch.blockSignals(False)
        self.switch.setEnabled(self.server.available)
        self.host.setEnabled(address is None)
        self.port.setEnabled(address is None)
        if not self.server.available:
            self.address.setText("The server cannot run in this window; use parley serve.")
        elif address is None:
            self.address.setText("Off.")
        else:
            self.address.setText(f"Serving at {address}")
        self._warn()

    async def set_serving(self, on: bool) -> None:
        """Start or stop the server; a refusal is said on the page and the switch goes back."""
        self.message.setText("")
        try:
            if on:
                await self.server.turn_on(self.host.text(), self.port.value())
            else:
                await self.server.turn_off()
        except ParleyError as exc:
            self.message.setText(f"Not started: {exc}.")
        self._show_state()

    # Keys ----------------------------------------------------------------------------

    async def load(self) -> None:
        """Show the server's state and list the keys."""
        self._show_state()
        try:
            listed = await self.server.listed()
        except ParleyError as exc:
            self.message.setText(f"The keys could not be read: {exc}.")
            return
        self.keys.setRowCount(len(listed))
        for row, key in enumerate(listed):
            limit = "none" if key.daily_tokens is None else f"{key.daily_tokens:,} tokens"
            threads = "kept" if key.keep_threads else "not kept"
            shown = (key.name, limit, f"{key.used_today:,} tokens", threads)
            for col, text in enumerate(shown):
                self.keys.setItem(row, col, QTableWidgetItem(text))

    async def add_key(self) -> str | None:
        """Ask a new key's name and limit, make it and show it once; the key, or ``None``."""
        asked = NewKeyDialog(self)
        self.dialog = asked
        if await ask(asked) != QDialog.DialogCode.Accepted:
            self.dialog = None
            return None
        name, limit = asked.name.text().strip(), asked.limit.value() or None
        try:
            key = await self.server.add_key(name, limit, not asked.no_threads.isChecked())
        except ParleyError as exc:
            self.dialog = None
            self.message.setText(f"No key was made: {exc}.")
            return None
        self.message.setText(f"Key {name} made.")
        await self.load()
        shown = KeyDialog(self, name, key)
        self.dialog = shown
        await ask(shown)
        self.dialog = None
        return key

    async def remove_key(self) -> bool:
        """Remove the selected key: it stops working at once."""
        row = self.keys.currentRow()
        item = self.keys.item(row, 0) if row >= 0 else None
        if item is None:
            self.message.setText("Choose a key to remove first.")
            return False
        name = item.text()
        try:
            gone = await self.server.remove_key(name)
        except ParleyError as exc:
            self.message.setText(f"Not removed: {exc}.")
            return False
        self.message.setText(f"Key {name} removed: it no longer works." if gone else "")
        await self.load()
        return gone
