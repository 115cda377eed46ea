"""Voice: the voice and speed read-aloud speaks with, and "Send when I stop talking" for
dictation; each applied at once and kept in the settings. The speech models themselves are
downloaded and removed in Manage models."""

from __future__ import annotations

import asyncio

from PySide6.QtWidgets import QCheckBox, QComboBox, QDoubleSpinBox, QFormLayout, QWidget

from app.core.errors import ParleyError
from app.services.settings.preferences import Preferences
from app.services.voice.service import VoiceService
from app.ui.settings._form import page_layout, result_label
from app.ui.settings.page import SettingsPage
from app.ui.tasks import spawn

__all__ = ["VoicePage"]

FIRST_VOICE = "The first installed voice"


class VoicePage(SettingsPage):
    """``readAloudVoice`` (a combo of the installed voices), ``readAloudSpeed`` (a spin box)
    and ``sendOnPause`` (a check box)."""

    TITLE = "Voice"
    OBJECT_NAME = "voiceSettingsPage"

    def __init__(
        self, preferences: Preferences, voice: VoiceService, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.preferences = preferences
        self.voice = voice
        layout = page_layout(
            self,
            self.TITLE,
            "Read aloud and dictation, on this computer. Speech models are downloaded in "
            "Manage models (from the model picker).",
        )
        form = QFormLayout()
        self.voices = QComboBox(self)
        self.voices.setObjectName("readAloudVoice")
        self.voices.setAccessibleName("Read-aloud voice")
        form.addRow("Read-aloud voice", self.voices)
        self.speed = QDoubleSpinBox(self)
        self.speed.setObjectName("readAloudSpeed")
        self.speed.setAccessibleName("Read-aloud speed")
        self.speed.setRange(0.5, 2.0)
        self.speed.setSingleStep(0.1)
        self.speed.setDecimals(1)
        self.speed.setSuffix("×")
        form.addRow("Speed", self.speed)
        layout.addLayout(form)
        self.send_on_pause = QCheckBox("Send when I stop talking", self)
        self.send_on_pause.setObjectName("sendOnPause")
        self.send_on_pause.setToolTip(
            "Dictation ends after a pause in speech and sends what was said"
        )
        layout.addWidget(self.send_on_pause)
        self.message = result_label(self, "voiceMessage")
        layout.addWidget(self.message)
        layout.addStretch(1)
        self.voices.activated.connect(lambda _i: spawn(self.save_read_aloud()))
        self.speed.editingFinished.connect(lambda: spawn(self.save_read_aloud()))
        self.send_on_pause.toggled.connect(lambda on: spawn(self.save_send_on_pause(on)))

    async def load(self) -> None:
        """Fill the choices from the installed voices and the saved settings."""
        try:
            listing = await asyncio.to_thread(self.voice.models.listing)
        except ParleyError as exc:
            listing = []
            self.message.setText(str(exc))
        names = [
            row.name
            for row in listing
            if row.installed is not None and row.installed.kind == "voice"
        ]
        chosen, speed = self.preferences.read_aloud()
        for widget in (self.voices, self.speed, self.send_on_pause):
            widget.blockSignals(True)
        self.voices.clear()
        self.voices.addItem(FIRST_VOICE, "")
        for name in names:
            self.voices.addItem(name, name)
        if chosen and chosen not in names:
            self.voices.addItem(f"{chosen} (not installed)", chosen)
        self.voices.setCurrentIndex(max(0, self.voices.findData(chosen or "")))
        self.speed.setValue(speed)
        self.send_on_pause.setChecked(self.preferences.send_on_pause())
        for widget in (self.voices, self.speed, self.send_on_pause):
            widget.blockSignals(False)
        if not names:
            self.message.setText("No voice is installed; download one in Manage models.")

    async def save_read_aloud(self) -> None:
        """Keep the chosen voice and speed."""
        voice = str(self.voices.currentData() or "") or None
        try:
            await self.preferences.set_read_aloud(voice, round(self.speed.value(), 2))
        except ParleyError as exc:
            self.message.setText(f"Not saved: {exc}")
            return
        self.message.setText("")

    async def save_send_on_pause(self, on: bool) -> None:
        """Keep "Send when I stop talking"."""
        try:
            await self.preferences.set_send_on_pause(on)
        except ParleyError as exc:
            self.message.setText(f"Not saved: {exc}")
