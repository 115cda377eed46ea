"""The header above the chat: the thread's agent and title, its model picker and its usage
meter."""

from __future__ import annotations

from enum import Enum
from pathlib import Path

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QFont, QMouseEvent, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QComboBox, QFrame, QHBoxLayout, QLabel, QSizePolicy, QWidget

from app.services.models.choices import ModelChoice
from app.services.models.downloads import DOWNLOAD_PREFIX
from app.text.hidden_chars import mark_hidden
from app.ui.budget.meter import BudgetMeter
from app.ui.elided import ElidedLabel
from app.ui.icons import icon
from app.ui.network_indicator import NetworkIndicator

__all__ = ["Header", "PickerCommand"]

AGENT_WIDTH = 160
"""The widest the agent's name is shown beside the title (longer names are elided)."""


class PickerCommand(Enum):
    """The picker's entries that are not models: what choosing each asks for."""

    ADD_FILE = "Add a model file (.gguf)…"
    MANAGE = "Manage models…"


COMMAND_ICONS = {PickerCommand.ADD_FILE: "file-add-line", PickerCommand.MANAGE: "settings-3-line"}
"""The icon each command shows in the picker's list."""


def friendly_name(spec: str) -> str:
    """A short label for a model spec the picker does not list."""
    provider, _, rest = spec.partition(":")
    if provider == "gguf" and not Path(rest).expanduser().exists():
        return f"{Path(rest).stem} (not downloaded)"
    if provider in ("scripted", "gguf"):
        return f"{Path(rest).stem} ({provider})"
    if provider == "local":
        return "SmolLM2 135M (bundled)"
    return rest.partition("@")[0] or spec


RENAME_HINT = "Double-click or press F2 to rename"
TITLE_CHARS = 32
"""About how many characters of the title the header asks room for before the others shrink."""
PICKER_LEAST = 160
"""The narrowest the model picker becomes when the header is short of room."""


class _Title(ElidedLabel):
    """The thread's title: it asks room for up to ``TITLE_CHARS`` characters and grows into
    what the header has left, shown cut with "…" beyond that (whole in its tooltip)."""

    doubleClicked = Signal()

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        self.doubleClicked.emit()

    def sizeHint(self) -> QSize:
        """Where the header is short of room, the title and the model picker give up room
        alike; where it has room, the title grows into it (it is Expanding)."""
        whole = super().sizeHint()
        most = self.fontMetrics().averageCharWidth() * TITLE_CHARS
        return QSize(min(whole.width(), most), whole.height())

    def tip_for(self, cut: bool) -> str:
        """The rename hint, after the whole title when it is cut."""
        return f"{self.text()}\n{RENAME_HINT}" if cut else RENAME_HINT


class Header(QFrame):
    """Title (double-click to rename), ``modelPicker`` and ``budgetMeter``."""

    modelChosen = Signal(str)
    """The thread is to talk to this model (its spec)."""
    downloadRequested = Signal(str)
    """Download the catalogue model of this name."""
    addFileRequested = Signal()
    manageRequested = Signal()
    renameRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("header")
        self._build_title()
        self.budget = BudgetMeter(self)
        self.network = NetworkIndicator(self)
        self._build_picker()
        self._lay_out()

    def _build_title(self) -> None:
        self.title = _Title("", self)
        self.title.setObjectName("threadTitle")
        self.title.setAccessibleName("Thread title")
        self.title.setToolTip(RENAME_HINT)
        self.title.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.title.setTextInteractionFlags(Qt.TextInteractionFlag.NoTextInteraction)
        self.title.doubleClicked.connect(self.renameRequested)

        self.status = QLabel("", self)
        self.status.setObjectName("modelStatus")

        self.agent = QLabel("", self)
        self.agent.setObjectName("threadAgent")
        self.agent.setAccessibleName("Agent")
        self.agent.setTextFormat(Qt.TextFormat.PlainText)
        self.agent.hide()
        self._locked: str | None = None

        self.incognito = QLabel("Incognito", self)
        self.incognito.setObjectName("incognitoMark")
        self.incognito.setToolTip(
            "This thread is incognito: no memory is used in it and nothing in it is remembered "
            "(Thread > Incognito)"
        )
        self.incognito.hide()

    def _build_picker(self) -> None:
        self.picker = QComboBox(self)
        self.picker.setObjectName("modelPicker")
        self.picker.setAccessibleName("Model")
        self.picker.setToolTip("The model this thread talks to (Ctrl+M)")
        self.picker.setMinimumWidth(PICKER_LEAST)
        self.picker.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.picker.setMinimumContentsLength(28)  # long entries show in full in the popup
        self._items = QStandardItemModel(self)
        self.picker.setModel(self._items)
        self.picker.activated.connect(self._activated)

    def _lay_out(self) -> None:
        layout = QHBoxLayout(self)
        layout.setContentsMargins(16, 8, 16, 8)
        layout.setSpacing(12)
        layout.addWidget(self.agent)
        layout.addWidget(self.title)  # Expanding: it takes the room left, gives it up alike
        layout.addWidget(self.incognito)
        layout.addWidget(self.status)
        layout.addWidget(self.network)
        layout.addWidget(self.budget)
        layout.addWidget(self.picker)

    def place_badge(self, badge: QWidget) -> None:
        """Show ``badge`` (what waits for you) before the network indicator."""
        layout = self.layout()
        assert isinstance(layout, QHBoxLayout)
        layout.insertWidget(layout.indexOf(self.network), badge)

    def show_agent(
        self, name: str, description: str = "", model: str | None = None, *, own: bool = True
    ) -> None:
        """Show the thread's agent beside its title (not for "Parley", ``own`` false); an
        agent with a model of its own keeps the picker on that model (its editor changes it)."""
        shown = mark_hidden(name)
        metrics = self.agent.fontMetrics()
        self.agent.setText(metrics.elidedText(shown, Qt.TextElideMode.ElideRight, AGENT_WIDTH))
        self.agent.setToolTip(mark_hidden(f"{name} — {description}" if description else name))
        self.agent.setVisible(bool(name) and own)
        self._locked = model
        self.picker.setEnabled(model is None)
        self.picker.setToolTip(
            "The model this thread talks to (Ctrl+M)"
            if model is None
            else mark_hidden(f"{name} always talks to this model; edit the agent to change it")
        )
        if model is not None:
            self.show_model(model)

    def set_choices(self, choices: list[ModelChoice], current: str | None) -> None:
        """Fill the picker; unavailable models are listed, disabled, with the reason."""
        self._items.clear()
        group = None
        bold = QFont(self.picker.font())
        bold.setBold(True)
        for choice in choices:
            if choice.group != group:
                group = choice.group
                head = QStandardItem(group)  # a heading: read, never chosen
                head.setFont(bold)
                head.setEnabled(False)
                head.setData(None, Qt.ItemDataRole.UserRole)
                self._items.appendRow(head)
            label = f"   {choice.label}" + (f" — {choice.detail}" if choice.detail else "")
            item = QStandardItem(label)
            item.setData(choice.spec, Qt.ItemDataRole.UserRole)
            item.setEnabled(choice.available)
            item.setToolTip(choice.detail or choice.spec)
            self._items.appendRow(item)
        for command in PickerCommand:
            item = QStandardItem(icon(COMMAND_ICONS[command]), command.value)
            item.setData(command, Qt.ItemDataRole.UserRole)
            self._items.appendRow(item)
        view = self.picker.view()
        view.setMinimumWidth(view.sizeHintForColumn(0) + 32)
        self.show_model(self._locked or current)

    def show_model(self, spec: str | None) -> None:
        """Show ``spec`` as the current choice (adding it when the list lacks it)."""
        if spec is None:
            return
        for row in range(self._items.rowCount()):
            if self._items.item(row).data(Qt.ItemDataRole.UserRole) == spec:
                self.picker.setCurrentIndex(row)
                return
        item = QStandardItem(f"   {friendly_name(spec)}")
        item.setData(spec, Qt.ItemDataRole.UserRole)
        self._items.insertRow(max(0, self._items.rowCount() - len(PickerCommand)), item)
        self.picker.setCurrentIndex(self._items.indexFromItem(item).row())

    def _activated(self, row: int) -> None:
        data = self._items.item(row).data(Qt.ItemDataRole.UserRole)
        if data == PickerCommand.ADD_FILE:
            self.addFileRequested.emit()
        elif data == PickerCommand.MANAGE:
            self.manageRequested.emit()
        elif isinstance(data, str) and data.startswith(DOWNLOAD_PREFIX):
            self.downloadRequested.emit(data.removeprefix(DOWNLOAD_PREFIX))
        elif isinstance(data, str) and data:
            self.modelChosen.emit(data)
