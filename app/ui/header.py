"""The header above the chat: the thread's title, its model picker and its usage meter."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QMouseEvent, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import QComboBox, QFrame, QHBoxLayout, QLabel, QWidget

from app.services.models.choices import ModelChoice
from app.ui.budget.meter import BudgetMeter
from app.ui.model_manage import MANAGE_MODELS
from app.ui.network_indicator import NetworkIndicator

__all__ = ["ADD_GGUF", "Header"]

ADD_GGUF = "__add_gguf__"


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


class _Title(QLabel):
    doubleClicked = Signal()

    def mouseDoubleClickEvent(self, event: QMouseEvent) -> None:
        self.doubleClicked.emit()


class Header(QFrame):
    """Title (double-click to rename), ``modelPicker`` and ``budgetMeter``."""

    modelChosen = Signal(str)
    renameRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("header")
        self.title = _Title("", self)
        self.title.setObjectName("threadTitle")
        self.title.setAccessibleName("Thread title")
        self.title.setToolTip("Double-click or press F2 to rename")
        self.title.setTextInteractionFlags(Qt.TextInteractionFlag.NoTextInteraction)
        self.title.doubleClicked.connect(self.renameRequested)

        self.status = QLabel("", self)
        self.status.setObjectName("modelStatus")

        self.budget = BudgetMeter(self)
        self.network = NetworkIndicator(self)

        self.picker = QComboBox(self)
        self.picker.setObjectName("modelPicker")
        self.picker.setAccessibleName("Model")
        self.picker.setToolTip("The model this thread talks to (Ctrl+M)")
        self.picker.setMinimumWidth(220)
        self.picker.setSizeAdjustPolicy(
            QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        )
        self.picker.setMinimumContentsLength(28)  # long entries show in full in the popup
        self._items = QStandardItemModel(self)
        self.picker.setModel(self._items)
        self.picker.activated.connect(self._activated)

        layout = QHBoxLayout(self)
        layout.setContentsMargins(16, 8, 16, 8)
        layout.setSpacing(12)
        layout.addWidget(self.title, 1)
        layout.addWidget(self.status)
        layout.addWidget(self.network)
        layout.addWidget(self.budget)
        layout.addWidget(self.picker)

    def set_choices(self, choices: list[ModelChoice], current: str | None) -> None:
        """Fill the picker; unavailable models are listed, disabled, with the reason."""
        self._items.clear()
        group = None
        for choice in choices:
            if choice.group != group:
                group = choice.group
                head = QStandardItem(group)
                head.setEnabled(False)
                head.setData(None, Qt.ItemDataRole.UserRole)
                self._items.appendRow(head)
            label = f"   {choice.label}" + (f" — {choice.detail}" if choice.detail else "")
            item = QStandardItem(label)
            item.setData(choice.spec, Qt.ItemDataRole.UserRole)
            item.setEnabled(choice.available)
            item.setToolTip(choice.detail or choice.spec)
            self._items.appendRow(item)
        add = QStandardItem("Add a model file (.gguf)…")
        add.setData(ADD_GGUF, Qt.ItemDataRole.UserRole)
        self._items.appendRow(add)
        manage = QStandardItem("Manage models…")
        manage.setData(MANAGE_MODELS, Qt.ItemDataRole.UserRole)
        self._items.appendRow(manage)
        view = self.picker.view()
        view.setMinimumWidth(view.sizeHintForColumn(0) + 32)
        self.show_model(current)

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
        self._items.insertRow(max(0, self._items.rowCount() - 2), item)
        self.picker.setCurrentIndex(self._items.indexFromItem(item).row())

    def _activated(self, row: int) -> None:
        spec = self._items.item(row).data(Qt.ItemDataRole.UserRole)
        if spec:
            self.modelChosen.emit(str(spec))
