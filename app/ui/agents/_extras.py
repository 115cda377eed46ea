"""The agent editor's knowledge folders (``agentKnowledge``, a checkable list of every
knowledge folder) and its approval rules (``agentRules``, read-only, each with Remove)."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.core.errors import ParleyError
from app.core.tools.argument_rules import shown_path
from app.services.agents import AgentService, StoredArgumentRule
from app.text.hidden_chars import mark_hidden
from app.ui.agents.ticks import TickList
from app.ui.tasks import spawn

__all__ = ["AgentRules", "knowledge_list"]


def knowledge_list(
    folders: Sequence[tuple[str, str | None]], mine: Sequence[str], parent: QWidget
) -> QListWidget:
    """A checkable row per knowledge folder (``(path, owner's name or None)``), the agent's
    own (``mine``) checked; a folder of another agent says whose it is now."""
    widget = TickList(parent)
    widget.setObjectName("agentKnowledge")
    widget.setAccessibleName("Knowledge folders")
    for path, owner in folders:
        shown = mark_hidden(shown_path(path))
        if owner is not None and path not in mine:
            shown += f" (now {mark_hidden(owner)}'s)"
        item = QListWidgetItem(shown, widget)
        item.setData(Qt.ItemDataRole.UserRole, path)
        item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
        item.setCheckState(Qt.CheckState.Checked if path in mine else Qt.CheckState.Unchecked)
    if not folders:
        none = QListWidgetItem("No knowledge folders yet (Settings › Knowledge)", widget)
        none.setFlags(Qt.ItemFlag.NoItemFlags)
    return widget


class AgentRules(QWidget):
    """The agent's approval rules, a line each ("write_file inside ~/notes"), with Remove
    (``removeAgentRuleButton``) for the one chosen; the dialog's "always allow" adds them."""

    def __init__(
        self, agents: AgentService, rules: Sequence[StoredArgumentRule], parent: QWidget
    ) -> None:
        super().__init__(parent)
        self._agents = agents
        self.rules = list(rules)
        self.list = QListWidget(self)
        self.list.setObjectName("agentRules")
        self.list.setAccessibleName("Approval rules")
        self.remove_button = QPushButton("Remove", self)
        self.remove_button.setObjectName("removeAgentRuleButton")
        self.message = QLabel("", self)
        self.message.setObjectName("agentRulesMessage")
        self.message.setTextFormat(Qt.TextFormat.PlainText)
        self.message.setWordWrap(True)
        row = QHBoxLayout()
        row.addWidget(self.list, 1)
        row.addWidget(self.remove_button, 0, Qt.AlignmentFlag.AlignTop)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.addLayout(row)
        column.addWidget(self.message)
        self.remove_button.clicked.connect(lambda: spawn(self.remove_chosen()))
        self.list.currentRowChanged.connect(self._chosen)
        self._show()

    def _show(self) -> None:
        self.list.clear()
        for kept in self.rules:
            self.list.addItem(mark_hidden(kept.rule.for_agent(None).describe()))
        if not self.rules:
            none = QListWidgetItem(
                'None yet: "Always allow" in an approval dialog adds one.', self.list
            )
            none.setFlags(Qt.ItemFlag.NoItemFlags)
        rows = max(1, min(4, self.list.count()))
        self.list.setFixedHeight(max(self.list.sizeHintForRow(0), 18) * rows + 8)
        self._chosen(self.list.currentRow())

    def _chosen(self, row: int) -> None:
        self.remove_button.setEnabled(0 <= row < len(self.rules))

    async def remove_chosen(self) -> bool:
        """Remove the chosen rule: the next call it covered asks again."""
        row = self.list.currentRow()
        if not 0 <= row < len(self.rules):
            return False
        kept = self.rules[row]
        try:
            await self._agents.remove_rule(kept.id)
        except ParleyError as exc:
            self.message.setText(f"Not removed: {exc}.")
            return False
        del self.rules[row]
        self._show()
        self.message.setText(f"Removed: {kept.rule.tool} asks again from its next call.")
        return True
