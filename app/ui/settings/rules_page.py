"""Approval rules: every "always allow" rule, each with Revoke — whole tools and rules scoped
by argument ("write_file inside ~/notes"). After a revoke the next call it covered asks again."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QLabel,
    QPushButton,
    QTableWidgetItem,
    QWidget,
)

from app.core.errors import ParleyError
from app.services.settings.preferences import Preferences, RuleRow, format_time
from app.text.hidden_chars import mark_hidden
from app.ui.settings._form import page_layout, result_label, rows_table
from app.ui.settings._labels import muted
from app.ui.settings.page import SettingsPage
from app.ui.tasks import spawn

__all__ = ["RulesPage"]


class RulesPage(SettingsPage):
    """The "always allow" rules in a table (``rulesTable``)."""

    TITLE = "Approval rules"
    OBJECT_NAME = "rulesSettingsPage"

    def __init__(self, preferences: Preferences, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.preferences = preferences
        layout = page_layout(
            self,
            self.TITLE,
            'Tools you chose to "always allow" run without asking, everywhere or only inside '
            "a folder, for a host or with one value. Revoke a rule and the next call it "
            "covered asks you again.",
        )
        self.table = rows_table(
            self, "rulesTable", "Always-allow rules", ["Tool", "Where", "Since", ""], stretch=1
        )
        self.empty = muted(
            QLabel("No always-allow rules: every tool that needs approval asks.", self)
        )
        self.empty.setObjectName("rulesEmpty")
        self.message = result_label(self, "rulesMessage")
        layout.addWidget(self.table, 1)
        layout.addWidget(self.empty)
        layout.addWidget(self.message)
        self.rules: list[RuleRow] = []

    async def load(self) -> None:
        """List the rules."""
        self.rules = await self.preferences.rules()
        self.table.setRowCount(len(self.rules))
        for row, rule in enumerate(self.rules):
            where = f"In “{rule.thread_title}”" if rule.thread_id else "Every thread"
            if rule.scope:
                where = f"{mark_hidden(rule.scope)} · {where.lower()}"
            if rule.agent:
                where = f"{where} · for {mark_hidden(rule.agent)}"
            for col, text in enumerate((rule.tool, where, format_time(rule.created_at))):
                self.table.setItem(row, col, QTableWidgetItem(text))
            button = QPushButton("Revoke", self.table)
            button.setObjectName("revokeRuleButton")
            button.setAccessibleName(f"Revoke: always allow {rule.tool}, {where.lower()}")
            button.clicked.connect(lambda _c=False, r=rule: spawn(self.revoke(r)))
            self.table.setCellWidget(row, 3, button)
        self.table.setVisible(bool(self.rules))
        self.empty.setVisible(not self.rules)

    async def revoke(self, rule: RuleRow) -> bool:
        """Remove ``rule``; the next call to its tool asks again."""
        try:
            await self.preferences.revoke_rule(
                rule.tool, rule.thread_id, rule.rule_id, agent=rule.agent or ""
            )
        except ParleyError as exc:
            self.message.setText(f"Not revoked: {exc}.")
            return False
        what = f"{rule.tool} {mark_hidden(rule.scope)}" if rule.scope else rule.tool
        if rule.agent:
            what = f"{what} for {mark_hidden(rule.agent)}"
        self.message.setText(f"Revoked: {what} asks again from its next call.")
        await self.load()
        return True
