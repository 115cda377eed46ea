"""``AgentEditor``: the dialog that defines or changes an agent (``agentEditor``), checking what
it can as you type — a message under the field, and **Save** off while anything is wrong.

A tool that cannot work now is greyed in the tool list with why, and a button under the list
(``agentToolFix_share_folder``, ``_go_online``, ``_start_server``) asks for the settings page
that fixes it (:attr:`AgentEditor.settingsWanted`)."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.core.budget import BudgetLimits
from app.core.errors import ParleyError
from app.services.agents import LIMIT_NAMES, Agent, AgentService, StoredArgumentRule
from app.services.workspace_tools import ToolFix
from app.ui.agents._extras import AgentRules, knowledge_list
from app.ui.agents.ticks import TickList
from app.ui.tasks import spawn
from app.ui.tools.fixes import FIX_PAGES, fix_tooltip, greyed_text

__all__ = ["AgentEditor"]

_LIMIT_LABELS = {
    "max_model_calls": "Model calls",
    "max_tool_calls": "Tool calls",
    "max_tokens": "Tokens",
    "max_cost": "Cost (US$)",
}


def _checklist(name: str, label: str, parent: QWidget) -> QListWidget:
    widget = TickList(parent)
    widget.setObjectName(name)
    widget.setAccessibleName(label)
    return widget


def _fit(widget: QListWidget, most: int) -> None:
    """Make ``widget`` as tall as its rows, up to ``most`` of them (then it scrolls)."""
    row = max(widget.sizeHintForRow(0), 18) if widget.count() else 18
    widget.setFixedHeight(row * max(1, min(most, widget.count())) + 2 * widget.frameWidth() + 4)


class AgentEditor(QDialog):
    """Defines a new agent (``agent`` ``None``) or changes ``agent``; saving goes through
    ``agents`` and, when it works, closes the dialog with :attr:`saved` set. ``rules`` are the
    agent's approval rules, listed to be removed."""

    settingsWanted = Signal(object)
    """A tool's fix was asked for: open the settings at this :class:`PageId`."""

    def __init__(
        self,
        agents: AgentService,
        *,
        agent: Agent | None = None,
        models: Sequence[tuple[str, str]] = (),
        rules: Sequence[StoredArgumentRule] = (),
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("agentEditor")
        self.setWindowTitle("Edit agent" if agent else "New agent")
        self.setMinimumWidth(560)
        self._agents = agents
        self._editing = agent
        self.saved: Agent | None = None
        """The agent as saved, once Save worked."""
        self._problems: dict[str, QLabel] = {}
        self._touched_name = agent is not None
        self._build_fields(agent or Agent(name=""), models)
        mine = agents.knowledge_of(agent) if agent else []
        self.knowledge = knowledge_list(agents.knowledge_folders(), mine, self)
        _fit(self.knowledge, 4)
        self.rules = AgentRules(agents, rules, self)
        self.keep_memories = QCheckBox("Keep what it remembers without asking", self)
        self.keep_memories.setObjectName("agentKeepMemories")
        self.keep_memories.setToolTip(
            "Off: each memory it proposes is shown on a card to Keep, Edit or not keep"
        )
        self.keep_memories.setChecked(agent is not None and agents.keeps_memories_unasked(agent.id))
        self._lay_out()
        self._connect()
        self.check()

    # Building ------------------------------------------------------------------------

    def _build_fields(self, agent: Agent, models: Sequence[tuple[str, str]]) -> None:
        self.name = QLineEdit(agent.name, self)
        self.name.setObjectName("agentName")
        self.name.setAccessibleName("Name")
        self.name.setPlaceholderText("Researcher")
        self.description = QLineEdit(agent.description, self)
        self.description.setObjectName("agentDescription")
        self.description.setAccessibleName("Description")
        self.description.setPlaceholderText("What it is for, in a line")
        self.instructions = QPlainTextEdit(agent.instructions, self)
        self.instructions.setObjectName("agentInstructions")
        self.instructions.setAccessibleName("Instructions")
        self.instructions.setPlaceholderText("What the agent is told before every turn")
        self.instructions.setTabChangesFocus(True)
        self.instructions.setMinimumHeight(96)
        self.instructions.setMaximumHeight(160)
        self.model = QComboBox(self)
        self.model.setObjectName("agentModel")
        self.model.setAccessibleName("Model")
        self.model.addItem("The thread's model", None)
        for label, spec in models:
            self.model.addItem(label, spec)
        if agent.model is not None and self.model.findData(agent.model) < 0:
            self.model.addItem(agent.model, agent.model)
        self.model.setCurrentIndex(max(0, self.model.findData(agent.model)))
        self.tools = _checklist("agentTools", "Tools", self)
        known = self._agents.known_tools()
        chosen = [*agent.tools, *(t for t in known if t not in agent.tools)]  # its own first
        for name in chosen:
            self._add_check(self.tools, name, name in agent.tools, name not in known)
        _fit(self.tools, 6)
        self._build_tool_fixes()
        self.delegates = _checklist("agentDelegates", "Delegates", self)
        others = [
            a.name
            for a in self._agents.cached
            if not a.builtin and (agent.id == "" or a.id != agent.id)
        ]
        keys = {a.lower() for a in others}
        for name in [*others, *(d for d in agent.delegates if d.lower() not in keys)]:
            on = name.lower() in {d.lower() for d in agent.delegates}
            self._add_check(self.delegates, name, on, name.lower() not in keys)
        if not self.delegates.count():
            none = QListWidgetItem("No other agents yet", self.delegates)
            none.setFlags(Qt.ItemFlag.NoItemFlags)
        _fit(self.delegates, 4)
        self._build_limits(agent.limits)
        self.starters = QPlainTextEdit("\n".join(agent.starters), self)
        self.starters.setObjectName("agentStarters")
        self.starters.setAccessibleName("Starter prompts, one a line")
        self.starters.setPlaceholderText("Up to three prompts, one a line")
        self.starters.setTabChangesFocus(True)
        self.starters.setMaximumHeight(72)
        self.buttons = QDialogButtonBox(self)
        self.save_button = QPushButton("Save", self)
        self.save_button.setObjectName("saveAgentButton")
        self.save_button.setDefault(True)
        self.buttons.addButton(self.save_button, QDialogButtonBox.ButtonRole.AcceptRole)
        cancel = self.buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        cancel.setObjectName("cancelAgentButton")
        self.problem = QLabel("", self)
        self.problem.setObjectName("agentEditorProblem")
        self.problem.setTextFormat(Qt.TextFormat.PlainText)
        self.problem.setWordWrap(True)
        self.problem.hide()

    @staticmethod
    def _add_check(widget: QListWidget, name: str, on: bool, missing: bool) -> None:
        item = QListWidgetItem(f"{name} (not here)" if missing else name)
        item.setData(Qt.ItemDataRole.UserRole, name)
        item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
        item.setCheckState(Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)
        widget.addItem(item)

    def _build_tool_fixes(self) -> None:
        self.tool_area = QWidget(self)
        column = QVBoxLayout(self.tool_area)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(4)
        column.addWidget(self.tools)
        row = QHBoxLayout()
        self.tool_fixes: dict[ToolFix, QPushButton] = {}
        for fix in ToolFix:
            button = QPushButton(fix.value, self.tool_area)
            button.setObjectName(f"agentToolFix_{fix.name.lower()}")
            button.setAutoDefault(False)
            button.clicked.connect(lambda _=False, f=fix: self.settingsWanted.emit(FIX_PAGES[f]))
            row.addWidget(button)
            self.tool_fixes[fix] = button
        row.addStretch(1)
        column.addLayout(row)
        self.mark_tools()

    def mark_tools(self) -> None:
        """Grey each tool that cannot work now, saying why, and show the buttons that fix
        them (called again when the settings or the MCP servers change)."""
        needed: set[ToolFix] = set()
        grey = self.palette().color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text)
        for row in range(self.tools.count()):
            item = self.tools.item(row)
            name = str(item.data(Qt.ItemDataRole.UserRole))
            why = self._agents.tool_unavailable(name)
            if why is None:
                if item.text().startswith(f"{name} — "):
                    item.setText(name)
                item.setData(Qt.ItemDataRole.ForegroundRole, None)
                item.setToolTip("")
                continue
            needed.add(why.fix)
            item.setText(greyed_text(name, why))
            item.setForeground(grey)
            item.setToolTip(fix_tooltip(name, why))
        for fix, button in self.tool_fixes.items():
            button.setVisible(fix in needed)

    def _build_limits(self, limits: BudgetLimits) -> None:
        self.limits = QWidget(self)
        self.limits.setObjectName("agentLimits")
        self.limits.setAccessibleName("Limits of a turn")
        grid = QGridLayout(self.limits)
        grid.setContentsMargins(0, 0, 0, 0)
        self.limit_edits: dict[str, QLineEdit] = {}
        for i, name in enumerate(LIMIT_NAMES):
            edit = QLineEdit(self.limits)
            edit.setObjectName(f"limit_{name}")
            edit.setAccessibleName(_LIMIT_LABELS[name])
            edit.setPlaceholderText("no limit")
            value = getattr(limits, name)
            edit.setText("" if value is None else f"{value:g}")
            grid.addWidget(QLabel(_LIMIT_LABELS[name], self.limits), i // 2, (i % 2) * 2)
            grid.addWidget(edit, i // 2, (i % 2) * 2 + 1)
            self.limit_edits[name] = edit

    def _problem_label(self, field: str) -> QLabel:
        label = QLabel("", self)
        label.setObjectName(f"agent{field.capitalize()}Problem")
        label.setTextFormat(Qt.TextFormat.PlainText)
        label.setWordWrap(True)
        label.setProperty("problem", True)
        label.hide()
        self._problems[field] = label
        return label

    def _lay_out(self) -> None:
        form = QFormLayout()
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        rows: list[tuple[str, str, QWidget]] = [
            ("Name", "name", self.name),
            ("Description", "description", self.description),
            ("Instructions", "instructions", self.instructions),
            ("Model", "model", self.model),
            ("Tools", "tools", self.tool_area),
            ("May ask", "delegates", self.delegates),
            ("Limits", "limits", self.limits),
            ("Starters", "starters", self.starters),
            ("Knowledge", "knowledge", self.knowledge),
            ("Approval rules", "rules", self.rules),
            ("Memory", "memory", self.keep_memories),
        ]
        for label, field, widget in rows:
            column = QVBoxLayout()
            column.setSpacing(2)
            column.addWidget(widget)
            column.addWidget(self._problem_label(field))
            form.addRow(label, column)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.problem)
        layout.addWidget(self.buttons)

    def _connect(self) -> None:
        self.name.textEdited.connect(self._name_edited)
        for edit in (self.description, *self.limit_edits.values()):
            edit.textChanged.connect(self.check)
        self.name.textChanged.connect(self.check)
        self.instructions.textChanged.connect(self.check)
        self.starters.textChanged.connect(self.check)
        self.model.currentIndexChanged.connect(self.check)
        self.tools.itemChanged.connect(self.check)
        self.delegates.itemChanged.connect(self.check)
        self.save_button.clicked.connect(lambda: spawn(self.save()))
        self.buttons.rejected.connect(self.reject)

    def _name_edited(self, _text: str) -> None:
        self._touched_name = True

    # Reading and checking ------------------------------------------------------------

    @staticmethod
    def _checked(widget: QListWidget) -> tuple[str, ...]:
        items = (widget.item(i) for i in range(widget.count()))
        return tuple(
            str(i.data(Qt.ItemDataRole.UserRole))
            for i in items
            if i.checkState() == Qt.CheckState.Checked and i.data(Qt.ItemDataRole.UserRole)
        )

    def _limits(self) -> tuple[BudgetLimits, str | None]:
        values: dict[str, int | float] = {}
        for name, edit in self.limit_edits.items():
            text = edit.text().strip().replace(",", "")
            if not text:
                continue
            try:
                values[name] = float(text) if name == "max_cost" else int(text)
            except ValueError:
                kind = "a number" if name == "max_cost" else "a whole number"
                return BudgetLimits(), f"{_LIMIT_LABELS[name]} must be {kind}, or empty."
        return BudgetLimits.model_validate(values), None

    def draft(self) -> Agent:
        """The agent as the fields describe it now."""
        limits, _ = self._limits()
        starters = tuple(s.strip() for s in self.starters.toPlainText().splitlines() if s.strip())
        return Agent(
            id=self._editing.id if self._editing else "",
            name=self.name.text().strip(),
            description=self.description.text().strip(),
            instructions=self.instructions.toPlainText(),
            model=self.model.currentData(),
            tools=self._checked(self.tools),
            delegates=self._checked(self.delegates),
            limits=limits,
            starters=starters,
        )

    def problems(self) -> dict[str, str]:
        """A sentence per field that cannot be saved as it is."""
        found = self._agents.problems(self.draft())
        _, limit_problem = self._limits()
        if limit_problem is not None:
            found["limits"] = limit_problem
        return found

    def check(self) -> None:
        """Show what is wrong under each field, and allow Save only when nothing is."""
        found = self.problems()
        for field, label in self._problems.items():
            text = found.get(field, "")
            if field == "name" and not self._touched_name and not self.name.text().strip():
                text = ""  # a new agent's empty name: Save is off, no scolding yet
            label.setText(text)
            label.setVisible(bool(text))
        self.save_button.setEnabled(not found)

    # Saving --------------------------------------------------------------------------

    async def save(self) -> Agent | None:
        """Save the agent; the dialog closes when it worked and says why when it did not."""
        if self.problems():
            return None
        self.save_button.setEnabled(False)
        try:
            if self._editing is None:
                agent = await self._agents.add(self.draft())
            else:
                agent = await self._agents.edit(self._editing.id, self.draft())
            await self._agents.set_knowledge(agent, self._checked(self.knowledge))
            await self._agents.set_keep_memories_unasked(agent.id, self.keep_memories.isChecked())
        except ParleyError as exc:
            self.problem.setText(str(exc))
            self.problem.show()
            self.check()
            return None
        self.saved = agent
        self.accept()
        return agent
