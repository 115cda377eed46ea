"""Dictation in the real window, with a recorded file standing in for the microphone: the
words appear in the message box, stay editable and are sent only when the user sends; Esc
cancels; a missing microphone is one sentence."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton

from app.services.voice import synthesize
from app.ui.dictation import Dictation
from tests.speech_models import needs_speech, register_speech_models, voice_folder
from tests.ui.harness import (
    Models,
    close_test_window,
    find,
    open_test_window,
    press,
    type_text,
    wait_until,
)

pytestmark = needs_speech


class FileRecorder:
    """A recording on disk in place of the microphone."""

    def __init__(self, wav: bytes, problem: str | None = None) -> None:
        self.wav = wav
        self.problem = problem
        self.cancelled = False

    def start(self) -> str | None:
        return self.problem

    def stop(self) -> bytes:
        return self.wav

    def cancel(self) -> None:
        self.cancelled = True


def _speech(text: str) -> bytes:
    return synthesize(text, voice_folder() / "en_US-joe-medium.onnx")


def _dictation(window: object) -> Dictation:
    part = window.dictation  # type: ignore[attr-defined]
    assert isinstance(part, Dictation)
    return part


async def test_dictated_words_land_in_the_box_stay_editable_and_are_sent_on_send(
    tmp_path: Path,
) -> None:
    data = tmp_path / "data"
    register_speech_models(data)
    window = await open_test_window(data, Models({"scripted:a": ["Noted."]}))
    try:
        dictation = _dictation(window)
        dictation.recorder_factory = lambda: FileRecorder(
            _speech("Please remember to buy fresh bread at the bakery tomorrow morning.")
        )
        button = find(window, QPushButton, "dictateButton")
        edit = window.composer.edit
        type_text(edit, "Note:")
        button.click()
        assert dictation.listening and button.text() == "■ Stop dictating"
        button.click()
        await wait_until(lambda: "bakery" in edit.toPlainText().lower(), 120, "the words")
        text = edit.toPlainText()
        assert text.startswith("Note: ") and "tomorrow" in text.lower()
        assert window.chat_vm.model.rowCount() == 0  # nothing was sent
        type_text(edit, " Thanks!")
        press(edit, Qt.Key.Key_Return)
        await wait_until(lambda: window.chat_vm.model.rowCount() >= 2, 30, "the reply")
        sent = window.chat_vm.model.messages()[0].text()
        assert sent.startswith("Note: ") and sent.endswith(" Thanks!") and "bakery" in sent.lower()
        assert await window.workspace.network.recent() == []
    finally:
        await close_test_window(window)


async def test_esc_cancels_listening_and_no_microphone_is_one_sentence(tmp_path: Path) -> None:
    data = tmp_path / "data"
    register_speech_models(data)
    window = await open_test_window(data, Models({"scripted:a": ["Noted."]}))
    try:
        dictation = _dictation(window)
        recorder = FileRecorder(_speech("This is thrown away."))
        dictation.recorder_factory = lambda: recorder
        button = find(window, QPushButton, "dictateButton")
        button.click()
        assert dictation.listening
        press(window.composer.edit, Qt.Key.Key_Escape)
        assert not dictation.listening and recorder.cancelled
        assert not button.isChecked() and button.text() == "Dictate"
        assert window.composer.edit.toPlainText() == ""

        missing = "No microphone was found; connect one (or allow Parley to use it) and try again."
        dictation.recorder_factory = lambda: FileRecorder(b"", missing)
        button.click()
        assert not dictation.listening and not button.isChecked()
        assert window.composer.hint.text() == missing
    finally:
        await close_test_window(window)
