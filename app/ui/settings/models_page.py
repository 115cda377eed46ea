"""Models & providers: each provider's base URL, saved when edited, and "Test connection",
which really asks the server for its models and says how it went in one sentence."""

from __future__ import annotations

from PySide6.QtWidgets import QGridLayout, QLabel, QLineEdit, QPushButton, QWidget

from app.core.errors import ParleyError
from app.services.settings.preferences import Preferences, Provider
from app.ui.settings._form import page_layout, result_label
from app.ui.settings.page import SettingsPage
from app.ui.tasks import spawn

__all__ = ["ModelsPage"]

PROVIDERS: list[tuple[Provider, str, str]] = [
    ("ollama", "Ollama", "Models served by Ollama on this computer or your network."),
    ("openai", "OpenAI-compatible", "OpenAI, or a llama.cpp server, LM Studio, vLLM…"),
    ("anthropic", "Anthropic", "Claude models (needs an API key)."),
]


class ModelsPage(SettingsPage):
    """Provider base URLs with a connection test each."""

    TITLE = "Models & providers"
    OBJECT_NAME = "modelsSettingsPage"

    def __init__(self, preferences: Preferences, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.preferences = preferences
        layout = page_layout(
            self,
            self.TITLE,
            "Where Parley finds models besides the one it bundles. A change is saved as soon "
            "as you leave the field.",
        )
        grid = QGridLayout()
        grid.setHorizontalSpacing(12)
        grid.setVerticalSpacing(6)
        self.urls: dict[Provider, QLineEdit] = {}
        self.results: dict[Provider, QLabel] = {}
        self.tests: dict[Provider, QPushButton] = {}
        row = 0
        for provider, name, hint in PROVIDERS:
            title = QLabel(f"<b>{name}</b>", self)
            edit = QLineEdit(self)
            edit.setObjectName(f"{provider}Url")
            edit.setAccessibleName(f"{name} base URL")
            edit.setToolTip(hint)
            title.setBuddy(edit)
            test = QPushButton("Test connection", self)
            test.setObjectName(f"{provider}TestButton")
            test.setAccessibleName(f"Test the connection to {name}")
            result = result_label(self, f"{provider}Result")
            result.setAccessibleName(f"{name} connection result")
            result.hide()
            edit.editingFinished.connect(lambda p=provider: spawn(self.save_url(p)))
            test.clicked.connect(lambda _c=False, p=provider: spawn(self.test(p)))
            grid.addWidget(title, row, 0)
            grid.addWidget(edit, row, 1)
            grid.addWidget(test, row, 2)
            grid.addWidget(result, row + 1, 1, 1, 2)
            row += 2
            self.urls[provider], self.results[provider], self.tests[provider] = edit, result, test
        grid.setColumnStretch(1, 1)
        layout.addLayout(grid)
        layout.addStretch(1)

    async def load(self) -> None:
        """Show the saved URLs."""
        for provider, edit in self.urls.items():
            if not edit.hasFocus():
                edit.setText(self.preferences.url(provider))

    async def save_url(self, provider: Provider) -> None:
        """Keep the URL typed for ``provider`` (or say why not, keeping the old one)."""
        edit = self.urls[provider]
        if edit.text().strip().rstrip("/") == self.preferences.url(provider):
            return
        try:
            clean = await self.preferences.set_url(provider, edit.text())
        except ParleyError as exc:
            self._say(provider, f"Not saved: {exc}.")
            return
        edit.setText(clean)
        self._say(provider, "Saved.")

    async def test(self, provider: Provider) -> bool:
        """Test the URL in the field; show the result sentence; return whether it worked."""
        button, label = self.tests[provider], self.results[provider]
        button.setEnabled(False)
        self._say(provider, "Connecting…")
        try:
            result = await self.preferences.test_connection(provider, self.urls[provider].text())
        finally:
            button.setEnabled(True)
        self._say(provider, result.text)
        label.setProperty("ok", result.ok)
        return result.ok

    def _say(self, provider: Provider, text: str) -> None:
        label = self.results[provider]
        label.setText(text)
        label.setVisible(bool(text))
