"""Network: offline mode, and the ledger of every connection Parley made or refused (when,
where, what for, the outcome; never contents or keys), filterable, with this session's
count."""

from __future__ import annotations

import datetime

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QCheckBox, QLabel, QLineEdit, QTableWidgetItem, QWidget

from app.core.netgate import Connection
from app.services.network import NetworkLedger, address_of, byte_counts, outcome_of
from app.services.settings.preferences import Preferences
from app.ui.settings._form import page_layout, result_label, rows_table
from app.ui.settings._labels import muted
from app.ui.settings.page import SettingsPage
from app.ui.tasks import spawn

__all__ = ["NetworkPage"]

COLUMNS = ["When", "Where", "Address", "For", "Outcome", "Sent / received"]
STDIO_NOTE = (
    "A local MCP server (one Parley starts as a program) is a program of its own: offline "
    "mode covers Parley's connections, not that program's. Switch such a server off on the "
    "MCP servers page if it must not reach the network."
)


class NetworkPage(SettingsPage):
    """``offlineSwitch``, ``networkFilter``, ``networkLedger`` and ``networkCount``."""

    TITLE = "Network"
    OBJECT_NAME = "networkSettingsPage"

    def __init__(
        self, network: NetworkLedger, preferences: Preferences, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.network = network
        self.preferences = preferences
        layout = page_layout(
            self,
            self.TITLE,
            "Parley connects to another computer only for a remote model, a download or a "
            "tool you allow. Every connection it makes is listed here (address, what it was "
            "for, the outcome; never what was sent) and kept for 30 days.",
        )
        self.offline = QCheckBox("Work &offline: refuse every connection to another computer")
        self.offline.setObjectName("offlineSwitch")
        self.offline.setParent(self)
        self.offline.toggled.connect(lambda on: spawn(self.set_offline(on)))
        note = muted(QLabel(STDIO_NOTE, self))
        note.setObjectName("stdioNote")
        note.setWordWrap(True)
        self.filter = QLineEdit(self)
        self.filter.setObjectName("networkFilter")
        self.filter.setPlaceholderText("Filter: address, purpose, outcome…")
        self.filter.setAccessibleName("Filter the network ledger")
        self.filter.setClearButtonEnabled(True)
        self.filter.textChanged.connect(self._apply_filter)
        self.table = rows_table(self, "networkLedger", "Network ledger", COLUMNS, stretch=3)
        self.table.setWordWrap(False)  # a long purpose is cut short; its tooltip says it all
        self.count = muted(QLabel("", self))
        self.count.setObjectName("networkCount")
        self.message = result_label(self, "networkMessage")
        layout.addWidget(self.offline)
        layout.addWidget(note)
        layout.addSpacing(8)
        layout.addWidget(self.filter)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.count)
        layout.addWidget(self.message)
        self.rows: list[Connection] = []
        self._refresh = QTimer(self)
        self._refresh.setInterval(2000)
        self._refresh.timeout.connect(lambda: spawn(self.load()) if self.isVisible() else None)
        self._refresh.start()

    async def load(self) -> None:
        """Show the offline choice and the ledger's newest connections."""
        network = self.network
        self.offline.blockSignals(True)
        self.offline.setChecked(network.offline)
        self.offline.blockSignals(False)
        self.rows = await network.recent(limit=500)
        self.table.setRowCount(len(self.rows))
        today = datetime.date.today()  # today's connections say only their time
        for row, connection in enumerate(self.rows):
            when = datetime.datetime.fromtimestamp(connection.time)
            said = byte_counts(connection)
            cells = (
                (f"{when:{'%H:%M:%S' if when.date() == today else '%d %b %H:%M'}}", f"{when:%c}"),
                ("this computer" if connection.local else "another computer", ""),
                (address_of(connection), ""),
                (connection.purpose, connection.purpose),
                (outcome_of(connection), ""),
                (said.replace(" sent, ", " / ").removesuffix(" received"), said),
            )
            for col, (text, tip) in enumerate(cells):
                item = QTableWidgetItem(text)
                if tip:  # the whole of what the cell shortens
                    item.setToolTip(tip)
                self.table.setItem(row, col, item)
        session = network.session_count
        self.count.setText(
            f"This session: {session} connection{'' if session == 1 else 's'}"
            f"{', offline' if network.offline else ''}."
        )
        self._apply_filter(self.filter.text())

    def _apply_filter(self, text: str) -> None:
        needle = text.strip().lower()
        for row in range(self.table.rowCount()):
            cells = (self.table.item(row, c) for c in range(self.table.columnCount()))
            line = " ".join(c.text() for c in cells if c is not None).lower()
            self.table.setRowHidden(row, bool(needle) and needle not in line)

    async def set_offline(self, offline: bool) -> None:
        """Turn offline mode on or off and keep the choice."""
        await self.preferences.set_offline(offline)
        self.message.setText(
            "Offline: connections to other computers are refused."
            if offline
            else "Online: remote models, downloads and allowed tools may connect."
        )
        await self.load()
