"""The models to compare (object name ``comparePicker``): every model the picker offers, each
with a box to tick; two to four may be chosen. A model that cannot be used now (offline and on
another computer, a file not found) is greyed out with the reason beside it."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.services.compare import MAX_MODELS, MIN_MODELS
from app.services.models.choices import ModelChoice
from app.text.hidden_chars import mark_hidden

__all__ = ["CompareModelsDialog"]

SPEC = Qt.ItemDataRole.UserRole + 1
"""An item's model spec."""


class CompareModelsDialog(QDialog):
    """Choose two to four models; :meth:`chosen` lists their specs in the list's order."""

    def __init__(
        self, parent: QWidget | None, choices: Sequence[ModelChoice], ticked: Sequence[str] = ()
    ) -> None:
        super().__init__(parent)
        self.setObjectName("comparePicker")
        self.setWindowTitle("Compare models")
        self.resize(460, 360)
        intro = QLabel(
            f"Choose {MIN_MODELS} to {MAX_MODELS} models. Each answers the message at once; "
            "models on this computer take their turn one at a time.",
            self,
        )
        intro.setWordWrap(True)
        self.list = QListWidget(self)
        self.list.setObjectName("compareModels")
        self.list.setAccessibleName("Models to compare")
        for choice in choices:
            if choice.spec.endswith(":"):  # a provider's own entry (Ollama not running)
                continue
            label = f"{mark_hidden(choice.label)} — {choice.group}"
            if not choice.available:
                label += f" ({choice.detail})" if choice.detail else " (not available)"
            item = QListWidgetItem(label, self.list)
            item.setData(SPEC, choice.spec)
            item.setToolTip(choice.spec if choice.available else choice.detail)
            flags = Qt.ItemFlag.ItemIsUserCheckable
            if choice.available:
                flags |= Qt.ItemFlag.ItemIsEnabled
            item.setFlags(flags)
            on = choice.available and choice.spec in ticked
            item.setCheckState(Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)
        self.status = QLabel("", self)
        self.status.setObjectName("compareCount")
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        self.start = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.start.setText("Compare")
        self.start.setObjectName("compareStart")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.list.itemChanged.connect(lambda _item: self._count())
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.status)
        layout.addWidget(self.buttons)
        self._count()

    def items(self) -> list[QListWidgetItem]:
        """Every model's row, in order."""
        return [self.list.item(i) for i in range(self.list.count())]

    def tick(self, spec: str, on: bool = True) -> None:
        """Tick (or untick) the model ``spec``, if it can be used."""
        for item in self.items():
            if item.data(SPEC) == spec and item.flags() & Qt.ItemFlag.ItemIsEnabled:
                item.setCheckState(Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)

    def chosen(self) -> list[str]:
        """The specs of the ticked models, in the list's order."""
        return [
            str(item.data(SPEC))
            for item in self.items()
            if item.checkState() == Qt.CheckState.Checked
            and item.flags() & Qt.ItemFlag.ItemIsEnabled
        ]

    def _count(self) -> None:
        n = len(self.chosen())
        ok = MIN_MODELS <= n <= MAX_MODELS
        self.start.setEnabled(ok)
        if n < MIN_MODELS:
            self.status.setText(f"{n} chosen: choose at least {MIN_MODELS}.")
        elif n > MAX_MODELS:
            self.status.setText(f"{n} chosen: at most {MAX_MODELS} can answer side by side.")
        else:
            self.status.setText(f"{n} chosen.")
