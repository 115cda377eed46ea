"""Appearance: follow the system, or always light, or always dark; applied at once."""

from __future__ import annotations

from PySide6.QtWidgets import QApplication, QButtonGroup, QRadioButton, QWidget

from app.core.errors import ParleyError
from app.services.settings.preferences import Preferences
from app.ui.settings._form import page_layout, result_label
from app.ui.settings.page import SettingsPage
from app.ui.tasks import spawn
from app.ui.theme import apply_theme

__all__ = ["AppearancePage"]

CHOICES = [("system", "Follow the system"), ("light", "Light"), ("dark", "Dark")]


class AppearancePage(SettingsPage):
    """Three radio buttons (``theme_system``, ``theme_light``, ``theme_dark``)."""

    TITLE = "Appearance"
    OBJECT_NAME = "appearanceSettingsPage"

    def __init__(self, preferences: Preferences, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.preferences = preferences
        layout = page_layout(self, self.TITLE, "Parley's colours. The change shows at once.")
        self.group = QButtonGroup(self)
        self.buttons: dict[str, QRadioButton] = {}
        for theme, label in CHOICES:
            button = QRadioButton(label, self)
            button.setObjectName(f"theme_{theme}")
            self.group.addButton(button)
            layout.addWidget(button)
            self.buttons[theme] = button
            button.toggled.connect(lambda on, t=theme: on and spawn(self.choose(t)))
        self.message = result_label(self, "appearanceMessage")
        layout.addWidget(self.message)
        layout.addStretch(1)

    async def load(self) -> None:
        """Check the saved theme."""
        button = self.buttons.get(self.preferences.theme, self.buttons["system"])
        button.blockSignals(True)
        button.setChecked(True)
        button.blockSignals(False)

    async def choose(self, theme: str) -> None:
        """Apply ``theme`` now and keep it."""
        if theme == self.preferences.theme:
            return
        try:
            await self.preferences.set_theme(theme)
        except ParleyError as exc:
            self.message.setText(f"Not saved: {exc}.")
            return
        app = QApplication.instance()
        if isinstance(app, QApplication):
            apply_theme(app, theme)
