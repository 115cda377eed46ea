"""API keys: kept in the system keyring (or for this session only when there is none — never
in a file), shown masked, replaced by pasting a new one, deleted with one click."""

from __future__ import annotations

from PySide6.QtWidgets import QGridLayout, QLabel, QLineEdit, QPushButton, QWidget

from app.core.errors import ParleyError
from app.services.settings.preferences import KeyInfo, Preferences
from app.ui.settings._form import page_layout, result_label
from app.ui.settings.page import SettingsPage
from app.ui.tasks import spawn

__all__ = ["KeysPage"]


def _slug(ref: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in ref)


class KeysPage(SettingsPage):
    """One row a key: name, masked value, a field for a new value, Save and Delete."""

    TITLE = "API keys"
    OBJECT_NAME = "keysSettingsPage"

    def __init__(self, preferences: Preferences, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.preferences = preferences
        layout = page_layout(
            self,
            self.TITLE,
            "Keys for online models. Parley never writes them to its own files or shows "
            "them again in full.",
        )
        self.status = result_label(self, "keyringStatus")
        layout.addWidget(self.status)
        self.grid = QGridLayout()
        self.grid.setHorizontalSpacing(12)
        self.grid.setVerticalSpacing(8)
        self.grid.setColumnStretch(2, 1)
        layout.addLayout(self.grid)
        self.message = result_label(self, "keysMessage")
        layout.addWidget(self.message)
        layout.addStretch(1)
        self.rows: dict[str, tuple[QLabel, QLineEdit, QPushButton, QPushButton]] = {}

    async def load(self) -> None:
        """Say where keys are kept and list them."""
        session_only, text = await self.preferences.keyring_message()
        self.status.setText(text)
        self.status.setProperty("warning", session_only)
        self.status.style().unpolish(self.status)
        self.status.style().polish(self.status)
        for key in await self.preferences.keys():
            self._row(key)

    def _row(self, key: KeyInfo) -> None:
        if key.ref not in self.rows:
            row = len(self.rows)
            name = QLabel(key.label, self)
            masked = QLabel("", self)
            masked.setObjectName(f"keyValue_{_slug(key.ref)}")
            edit = QLineEdit(self)
            edit.setObjectName(f"keyEdit_{_slug(key.ref)}")
            edit.setEchoMode(QLineEdit.EchoMode.Password)
            edit.setAccessibleName(f"New {key.label} key")
            save = QPushButton("Save", self)
            save.setObjectName(f"keySave_{_slug(key.ref)}")
            save.setAccessibleName(f"Save the {key.label} key")
            delete = QPushButton("Delete", self)
            delete.setObjectName(f"keyDelete_{_slug(key.ref)}")
            delete.setAccessibleName(f"Delete the {key.label} key")
            save.clicked.connect(lambda _c=False, r=key.ref: spawn(self.save(r)))
            edit.returnPressed.connect(lambda r=key.ref: spawn(self.save(r)))
            delete.clicked.connect(lambda _c=False, r=key.ref: spawn(self.delete(r)))
            for col, widget in enumerate((name, masked, edit, save, delete)):
                self.grid.addWidget(widget, row, col)
            self.rows[key.ref] = (masked, edit, save, delete)
        masked, edit, _save, delete = self.rows[key.ref]
        masked.setText(key.masked)
        masked.setAccessibleName(f"{key.label} key: " + ("set" if key.is_set else "not set"))
        edit.setPlaceholderText("Paste a new key to replace it" if key.is_set else "Paste a key")
        delete.setEnabled(key.is_set)

    async def save(self, ref: str) -> bool:
        """Store the pasted key as ``ref``; the field is cleared either way it goes."""
        _masked, edit, _s, _d = self.rows[ref]
        value = edit.text()
        edit.clear()
        try:
            self.message.setText(await self.preferences.set_key(ref, value))
        except ParleyError as exc:
            self.message.setText(f"Not saved: {exc}.")
            return False
        await self.load()
        return True

    async def delete(self, ref: str) -> bool:
        """Remove the key ``ref``."""
        try:
            await self.preferences.delete_key(ref)
        except ParleyError as exc:
            self.message.setText(f"Not deleted: {exc}.")
            return False
        self.message.setText("Key deleted.")
        await self.load()
        return True
