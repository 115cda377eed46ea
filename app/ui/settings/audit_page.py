"""Audit log: every approval request and decision (time, thread, tool, decision, scope and the
arguments' fingerprint — never the arguments), filterable by text, tool and decision."""

from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QTableWidgetItem,
    QWidget,
)

from app.services.settings.preferences import DECISIONS, AuditRow, Preferences, format_time
from app.ui.settings._form import page_layout, rows_table
from app.ui.settings._labels import muted
from app.ui.settings.page import SettingsPage
from app.ui.tasks import spawn

__all__ = ["AuditPage"]

ANY = "Any"
COLUMNS = ["Time", "Thread", "Tool", "Decision", "Scope", "Fingerprint"]


class AuditPage(SettingsPage):
    """The audit log in a table (``auditTable``) with three filters."""

    TITLE = "Audit log"
    OBJECT_NAME = "auditSettingsPage"

    def __init__(self, preferences: Preferences, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.preferences = preferences
        layout = page_layout(
            self,
            self.TITLE,
            "Every tool call that asked for approval, and what was decided. Arguments are "
            "kept only as a fingerprint, so nothing secret is stored here.",
        )
        self.text = QLineEdit(self)
        self.text.setObjectName("auditFilter")
        self.text.setPlaceholderText("Filter: thread, tool, reason, fingerprint…")
        self.text.setAccessibleName("Filter the audit log")
        self.text.setClearButtonEnabled(True)
        self.tool = QComboBox(self)
        self.tool.setObjectName("auditTool")
        self.tool.setAccessibleName("Tool")
        self.decision = QComboBox(self)
        self.decision.setObjectName("auditDecision")
        self.decision.setAccessibleName("Decision")
        self.decision.addItems([ANY, *DECISIONS])
        filters = QHBoxLayout()
        filters.setSpacing(8)
        filters.addWidget(self.text, 1)
        filters.addWidget(QLabel("Tool", self))
        filters.addWidget(self.tool)
        filters.addWidget(QLabel("Decision", self))
        filters.addWidget(self.decision)
        layout.addLayout(filters)
        self.table = rows_table(self, "auditTable", "Audit log", COLUMNS, stretch=1)
        layout.addWidget(self.table, 1)
        self.count = muted(QLabel("", self))
        self.count.setObjectName("auditCount")
        layout.addWidget(self.count)
        self.rows: list[AuditRow] = []
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(200)
        self._debounce.timeout.connect(lambda: spawn(self.load()))
        self.text.textChanged.connect(lambda _t: self._debounce.start())
        self.tool.activated.connect(lambda _i: spawn(self.load()))
        self.decision.activated.connect(lambda _i: spawn(self.load()))

    async def load(self) -> None:
        """Fill the table with the entries the filters let through."""
        prefs = self.preferences
        chosen = self.tool.currentText()
        tools = sorted({r.tool for r in await prefs.audit()})
        self.tool.clear()
        self.tool.addItems([ANY, *tools])
        self.tool.setCurrentText(chosen if chosen in tools else ANY)
        tool = self.tool.currentText()
        decision = self.decision.currentText()
        self.rows = await prefs.audit(
            self.text.text(),
            tool=None if tool in (ANY, "") else tool,
            decision=None if decision == ANY else decision,
        )
        self.table.setRowCount(len(self.rows))
        for row, entry in enumerate(self.rows):
            values = (
                format_time(entry.time),
                entry.thread_title or "(no thread)",
                entry.tool,
                entry.decision.replace("_", " "),
                entry.scope,
                entry.fingerprint[:12] + "…",
            )
            for col, value in enumerate(values):
                item = QTableWidgetItem(value)
                if col == 5:
                    item.setToolTip(f"SHA-256 of the arguments: {entry.fingerprint}")
                elif col == 3 and entry.reason:
                    item.setToolTip(f"Reason: {entry.reason}")
                self.table.setItem(row, col, item)
        plural = "entry" if len(self.rows) == 1 else "entries"
        self.count.setText(f"{len(self.rows)} {plural}")
