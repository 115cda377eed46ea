"""Settings > Voice in the real window: the installed voices are offered, the chosen voice and
speed are kept in the settings file and read-aloud speaks with them (a faster speed makes the
same sentence shorter), and "Send when I stop talking" is kept."""

from __future__ import annotations

import io
import json
import wave
from pathlib import Path

from PySide6.QtWidgets import QCheckBox, QComboBox, QDoubleSpinBox

from app.ui.settings.page import PageId
from tests.speech_models import VOICE, needs_speech, register_speech_models
from tests.ui.harness import (
    Models,
    close_test_window,
    find,
    open_test_window,
    settings_shown_at,
    wait_until,
)
from tests.ui.test_read_aloud import KeptSpeaker

pytestmark = needs_speech

SENTENCE = "The ferry to the island leaves every hour from the northern pier."


def _seconds(wav: bytes) -> float:
    with wave.open(io.BytesIO(wav)) as read:
        return read.getnframes() / read.getframerate()


async def test_voice_and_speed_are_kept_and_read_aloud_uses_them(tmp_path: Path) -> None:
    data = tmp_path / "data"
    register_speech_models(data)
    window = await open_test_window(data, Models({"scripted:a": ["Noted."]}))
    try:
        speaker = KeptSpeaker()
        window.read_aloud.speaker_factory = lambda: speaker
        window.read_aloud.read(SENTENCE)
        await wait_until(lambda: speaker.played and not window.read_aloud.reading, 60, "speech")
        at_one = _seconds(speaker.played[-1])

        window.open_settings(PageId.VOICE)
        dialog = await settings_shown_at(window, PageId.VOICE.value)
        voices = find(dialog, QComboBox, "readAloudVoice")
        await wait_until(lambda: voices.findData(VOICE) >= 0, 10, "the installed voice offered")
        voices.setCurrentIndex(voices.findData(VOICE))
        voices.activated.emit(voices.currentIndex())
        speed = find(dialog, QDoubleSpinBox, "readAloudSpeed")
        assert speed.value() == 1.0
        speed.setValue(1.5)
        speed.editingFinished.emit()
        pause = find(dialog, QCheckBox, "sendOnPause")
        assert not pause.isChecked()
        pause.setChecked(True)
        settings_file = data / "settings.json"
        await wait_until(
            lambda: (
                settings_file.is_file()
                and json.loads(settings_file.read_text()).get("read_aloud_speed") == 1.5
                and json.loads(settings_file.read_text()).get("send_on_pause") is True
            ),
            10,
            "the settings kept",
        )
        kept = json.loads(settings_file.read_text())
        assert kept["read_aloud_voice"] == VOICE
        dialog.close()

        window.read_aloud.read(SENTENCE)
        count = len(speaker.played)
        await wait_until(
            lambda: len(speaker.played) > count and not window.read_aloud.reading, 60, "again"
        )
        faster = _seconds(speaker.played[-1])
        assert faster < at_one * 0.85
    finally:
        await close_test_window(window)


async def test_a_voice_no_longer_installed_is_named_and_read_aloud_says_why(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    register_speech_models(data)
    window = await open_test_window(data, Models({"scripted:a": ["Noted."]}))
    try:
        await window.workspace.preferences.set_read_aloud("voice-gone", 1.0)
        window.open_settings(PageId.VOICE)
        dialog = await settings_shown_at(window, PageId.VOICE.value)
        voices = find(dialog, QComboBox, "readAloudVoice")
        await wait_until(lambda: voices.count() > 1, 10, "the voices listed")
        assert voices.currentText() == "voice-gone (not installed)"
        dialog.close()
        window.read_aloud.speaker_factory = KeptSpeaker
        window.read_aloud.read(SENTENCE)
        hint = await wait_until(
            lambda: "voice-gone" in window.composer.hint.text() and window.composer.hint.text(),
            30,
            "the reason",
        )
        assert "voice-gone" in hint
    finally:
        await close_test_window(window)
