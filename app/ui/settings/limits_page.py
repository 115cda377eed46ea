"""Limits: the budget every new run starts with. A run that reaches one pauses and asks."""

from __future__ import annotations

from PySide6.QtWidgets import QAbstractSpinBox, QDoubleSpinBox, QFormLayout, QSpinBox, QWidget

from app.core.errors import ParleyError
from app.services.settings.preferences import Preferences
from app.ui.settings._form import page_layout, result_label
from app.ui.settings.page import SettingsPage
from app.ui.tasks import spawn

__all__ = ["LimitsPage"]

NO_LIMIT = "No limit"


class LimitsPage(SettingsPage):
    """Spin boxes for the default limits (0 shows as "No limit")."""

    TITLE = "Limits"
    OBJECT_NAME = "limitsSettingsPage"

    def __init__(self, preferences: Preferences, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.preferences = preferences
        layout = page_layout(
            self,
            self.TITLE,
            "How much one run may spend before Parley pauses it and asks you whether to go "
            "on. These apply to runs that start from now on.",
        )
        form = QFormLayout()
        form.setHorizontalSpacing(16)
        self.boxes: dict[str, QAbstractSpinBox] = {}
        for name, label, maximum in (
            ("max_model_calls", "Model calls per run", 100_000),
            ("max_tool_calls", "Tool calls per run", 100_000),
            ("max_tokens", "Tokens per run", 100_000_000),
        ):
            box = QSpinBox(self)
            box.setRange(0, maximum)
            box.setSpecialValueText(NO_LIMIT)
            box.setGroupSeparatorShown(True)
            box.setObjectName(f"limit_{name}")
            box.setMaximumWidth(220)
            box.setAccessibleName(label)
            box.editingFinished.connect(lambda n=name: spawn(self.save(n)))
            form.addRow(label, box)
            self.boxes[name] = box
        cost = QDoubleSpinBox(self)
        cost.setRange(0, 10_000)
        cost.setDecimals(2)
        cost.setPrefix("$")
        cost.setSpecialValueText(NO_LIMIT)
        cost.setObjectName("limit_max_cost")
        cost.setMaximumWidth(220)
        cost.setAccessibleName("Cost per run in US dollars")
        cost.editingFinished.connect(lambda: spawn(self.save("max_cost")))
        form.addRow("Cost per run", cost)
        self.boxes["max_cost"] = cost
        layout.addLayout(form)
        self.message = result_label(self, "limitsMessage")
        layout.addWidget(self.message)
        layout.addStretch(1)

    async def load(self) -> None:
        """Show the saved default limits."""
        limits = self.preferences.default_limits
        for name, box in self.boxes.items():
            value = getattr(limits, name) or 0
            box.blockSignals(True)
            box.setValue(value)  # type: ignore[attr-defined]
            box.blockSignals(False)

    async def save(self, name: str) -> None:
        """Keep the limit ``name`` as shown in its box."""
        value = self.boxes[name].value()  # type: ignore[attr-defined]
        try:
            await self.preferences.set_default_limits(**{name: value or None})
        except ParleyError as exc:
            self.message.setText(f"Not saved: {exc}.")
            return
        self.message.setText("Saved: new runs start with these limits.")
