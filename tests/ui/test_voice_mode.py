"""A voice conversation interrupted by speaking, in the real window: a recording played out in
real time stands in for the microphone and a speaker keeps what it is given. While the reply
is read, the user starts to talk: the reading stops, what they say becomes the next message
(its first words included), and a pause sends it."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton

from app.ui.speech_input import RATE
from app.ui.voice_mode import VoiceMode
from tests.speech_models import as_microphone, needs_speech, register_speech_models
from tests.ui.harness import (
    Models,
    close_test_window,
    find,
    open_test_window,
    press,
    type_text,
    wait_until,
)
from tests.ui.test_dictation import FileRecorder, LiveRecorder, _speech
from tests.ui.test_read_aloud import KeptSpeaker

pytestmark = needs_speech

LONG_REPLY = " ".join(
    f"Day {n} of the trip goes up the valley to the lake and back down by the river."
    for n in range(1, 25)
)


def _silence(seconds: float) -> bytes:
    return bytes(2 * int(seconds * RATE))


async def test_speaking_while_a_reply_is_read_stops_it_and_is_sent(tmp_path: Path) -> None:
    data = tmp_path / "data"
    register_speech_models(data)
    window = await open_test_window(data, Models({"scripted:a": [LONG_REPLY, "Roses like sun."]}))
    try:
        voice_mode = window.voice_mode
        assert isinstance(voice_mode, VoiceMode)
        speaker = KeptSpeaker()
        window.read_aloud.speaker_factory = lambda: speaker
        dictation = window.dictation
        dictation.recorder_factory = lambda: FileRecorder(_speech("Plan a trip to the lake."))
        find(window, QPushButton, "voiceModeButton").click()
        dictate = find(window, QPushButton, "dictateButton")
        interruption = as_microphone(_speech("Wait. Tell me about the roses instead."))
        # From now on the microphone hears a quiet room, then the user talking over the reply.
        dictate.click()
        dictate.click()
        dictation.recorder_factory = lambda: LiveRecorder(
            _silence(1.0) + interruption + _silence(3.0)
        )

        await wait_until(lambda: window.read_aloud.reading, 120, "the reply to be read")
        assert window.composer.hint.text().startswith("Reading aloud… speak")
        await wait_until(lambda: dictation.listening, 30, "the voice to interrupt")
        assert not window.read_aloud.reading and speaker.stopped >= 1
        assert dictation.button.isChecked()
        await wait_until(lambda: window.chat_vm.model.rowCount() >= 4, 120, "the words sent")
        said = window.chat_vm.model.messages()[2].text().lower()
        assert "wait" in said and "roses" in said, said  # its first word too
        assert len(speaker.played) < 24  # it did not read on to the end
        assert await window.workspace.network.recent() == []
    finally:
        await close_test_window(window)


async def test_with_no_microphone_only_esc_interrupts(tmp_path: Path) -> None:
    data = tmp_path / "data"
    register_speech_models(data)
    window = await open_test_window(data, Models({"scripted:a": [LONG_REPLY]}))
    try:
        speaker = KeptSpeaker()
        window.read_aloud.speaker_factory = lambda: speaker
        opened: list[FileRecorder] = []

        def no_microphone() -> FileRecorder:
            opened.append(FileRecorder(b"", problem="No microphone was found."))
            return opened[-1]

        window.dictation.recorder_factory = no_microphone
        find(window, QPushButton, "voiceModeButton").click()
        type_text(window.composer.edit, "Plan a trip.")
        press(window.composer.edit, Qt.Key.Key_Return)
        await wait_until(lambda: window.read_aloud.reading, 120, "the reply to be read")
        await wait_until(lambda: len(speaker.played) >= 2, 60, "two sentences")
        assert len(opened) == 1  # asked once, not at every look
        assert window.read_aloud.reading and not window.dictation.listening
        window.composer.edit.escapePressed.emit()
        assert not window.read_aloud.reading
    finally:
        await close_test_window(window)
