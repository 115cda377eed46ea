"""Dictation in the real window, with a recorded file standing in for the microphone: the
words appear in the message box, stay editable and are sent only when the user sends; Esc
cancels; a missing microphone is one sentence. A recording played out in real time shows the
level meter rising, Whisper started by the pointer on the button, the words so far before
the final ones (a long dictation's earlier ones kept as they were), hold to talk, and "Send
when I stop talking"; a speech process that dies loses nothing that was said."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from PySide6.QtCore import QPointF, Qt
from PySide6.QtGui import QEnterEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QListView, QProgressBar, QPushButton

from app.services.voice import synthesize
from app.ui.dictation import KEEP_AFTER_S, Dictation
from app.ui.speech_input import RATE, wav_bytes
from app.ui.window import MainWindow
from tests.speech_models import (
    as_microphone,
    needs_speech,
    register_speech_models,
    voice_folder,
)
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

    def heard(self) -> bytes:
        return b""

    def stop(self) -> bytes:
        return self.wav

    def cancel(self) -> None:
        self.cancelled = True


def _speech(text: str) -> bytes:
    return synthesize(text, voice_folder() / "en_US-joe-medium.onnx")


class LiveRecorder:
    """A recording heard as if spoken now: ``heard`` gives what a microphone would have
    taken in since ``start``; ``stop`` gives that much as WAV."""

    def __init__(self, pcm: bytes) -> None:
        self.pcm = pcm
        self.began = 0.0

    def start(self) -> str | None:
        self.began = time.monotonic()
        return None

    def heard(self) -> bytes:
        return self.pcm[: int((time.monotonic() - self.began) * RATE) * 2]

    def stop(self) -> bytes:
        return wav_bytes(self.heard())

    def cancel(self) -> None:
        pass


def _dictation(window: object) -> Dictation:
    part = window.dictation  # type: ignore[attr-defined]
    assert isinstance(part, Dictation)
    return part


async def _open(tmp_path: Path, *replies: str) -> MainWindow:
    """A window whose data directory has the speech models, and a scripted model."""
    data = tmp_path / "data"
    register_speech_models(data)
    return await open_test_window(data, Models({"scripted:a": list(replies or ["Noted."])}))


async def test_dictated_words_land_in_the_box_stay_editable_and_are_sent_on_send(
    tmp_path: Path,
) -> None:
    window = await _open(tmp_path)
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
    window = await _open(tmp_path)
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


SPOKEN = (
    "The library opens at nine in the morning and closes at six in the evening, "
    "and on Sundays it stays closed all day."
)


async def test_level_rises_and_the_words_so_far_show_before_the_final_text(
    tmp_path: Path,
) -> None:
    window = await _open(tmp_path)
    try:
        dictation = _dictation(window)
        pcm = as_microphone(_speech(SPOKEN))
        dictation.recorder_factory = lambda: LiveRecorder(pcm)
        level = find(window, QProgressBar, "dictateLevel")
        edit = window.composer.edit
        type_text(edit, "Hours:")
        assert not level.isVisible()
        button = find(window, QPushButton, "dictateButton")
        worker = window.workspace.voice.worker
        assert worker.process is None
        at = QPointF(button.width() / 2, button.height() / 2)
        QApplication.sendEvent(button, QEnterEvent(at, at, button.mapToGlobal(at)))
        # the pointer on the button starts Whisper before the press
        await wait_until(lambda: worker.process is not None and not worker.busy, 60, "Whisper")
        loaded = worker.process
        button.click()
        assert level.isVisible()
        await wait_until(lambda: level.value() > 0, 10, "the level meter to rise")
        partial = await wait_until(
            lambda: edit.toPlainText().removeprefix("Hours:").strip(), 60, "the words so far"
        )
        assert dictation.listening  # shown while still listening
        assert edit.toPlainText().startswith("Hours: ")
        await asyncio.sleep(len(pcm) / 2 / RATE)  # let the whole sentence be said
        dictation.toggle()
        await wait_until(lambda: not dictation.busy, 60, "the final text")
        text = edit.toPlainText()
        assert text.startswith("Hours: ") and "sunday" in text.lower()
        assert text.lower().count("library") == 1  # the words so far were replaced
        assert partial != text.removeprefix("Hours: ")
        assert not level.isVisible() and worker.process is loaded
        assert window.chat_vm.model.rowCount() == 0  # not sent until the user sends
    finally:
        await close_test_window(window)


async def test_a_long_dictation_keeps_its_earlier_words_so_far_and_adds_the_new(
    tmp_path: Path,
) -> None:
    window = await _open(tmp_path)
    try:
        dictation = _dictation(window)
        recorder = LiveRecorder(as_microphone(_speech(SPOKEN)) * 4)
        dictation.recorder_factory = lambda: recorder
        edit = window.composer.edit
        await window.workspace.voice.prepare_dictation()
        find(window, QPushButton, "dictateButton").click()
        recorder.began -= KEEP_AFTER_S - 1  # as if most of that had been said already
        first = await wait_until(lambda: edit.toPlainText(), 60, "the words so far")
        assert "library" in first.lower()
        later = await wait_until(
            lambda: edit.toPlainText() if len(edit.toPlainText()) > len(first) else "",
            60,
            "the newer words",
        )
        assert dictation.listening and later.startswith(first + " ")  # kept as they were
        dictation.cancel()
        assert edit.toPlainText() == ""
    finally:
        await close_test_window(window)


async def test_hold_to_talk_and_send_when_i_stop_talking(tmp_path: Path) -> None:
    window = await _open(tmp_path, "Noted.", "Noted again.")
    try:
        dictation = _dictation(window)
        button = find(window, QPushButton, "dictateButton")
        edit = window.composer.edit
        dictation.recorder_factory = lambda: FileRecorder(_speech("Water the plants today."))
        QTest.mouseClick(button, Qt.MouseButton.LeftButton)  # a click: press once to start
        assert dictation.listening
        QTest.mouseClick(button, Qt.MouseButton.LeftButton)  # and again to stop
        assert not dictation.listening
        await wait_until(lambda: "plant" in edit.toPlainText().lower(), 60, "the clicked words")
        edit.clear()

        dictation.recorder_factory = lambda: FileRecorder(_speech("Feed the cat tonight."))
        QTest.mousePress(button, Qt.MouseButton.LeftButton)
        assert dictation.listening and button.isChecked()
        await asyncio.sleep(0.6)
        QTest.mouseRelease(button, Qt.MouseButton.LeftButton)  # held: letting go stops
        assert not dictation.listening
        await wait_until(lambda: "cat" in edit.toPlainText().lower(), 60, "the held words")
        assert window.chat_vm.model.rowCount() == 0
        edit.clear()

        pcm = as_microphone(_speech("Book a table for two at eight."))
        dictation.recorder_factory = lambda: LiveRecorder(pcm + bytes(2 * 3 * RATE))
        await window.workspace.preferences.set_send_on_pause(True)
        button.click()
        await wait_until(lambda: window.chat_vm.model.rowCount() >= 2, 60, "the message sent")
        assert not dictation.listening
        sent = window.chat_vm.model.messages()[0].text()
        assert "table" in sent.lower() and ("8" in sent or "eight" in sent.lower())
    finally:
        await close_test_window(window)


async def test_a_speech_process_that_dies_loses_nothing_said(tmp_path: Path) -> None:
    window = await _open(tmp_path)
    try:
        dictation = _dictation(window)
        worker = window.workspace.voice.worker
        await window.workspace.voice.prepare_dictation()
        # Long enough to be still at work when killed, short enough that what is kept and what
        # comes next fit in one of Whisper's 30-second windows.
        long_enough = " ".join(["Buy more coffee beans.", SPOKEN])
        dictation.recorder_factory = lambda: FileRecorder(_speech(long_enough))
        dictation.toggle()
        dictation.toggle()
        await wait_until(lambda: worker.busy, 10, "the transcription to begin")
        first = worker.process
        assert first is not None
        first.kill()
        await wait_until(lambda: not dictation.busy, 30, "the transcription to end")
        hint = window.composer.hint.text()
        assert hint.startswith("The speech process stopped before it finished")
        assert "kept" in hint and window.composer.edit.toPlainText() == ""

        dictation.recorder_factory = lambda: FileRecorder(_speech("And some fresh milk."))
        dictation.toggle()
        dictation.toggle()
        await wait_until(lambda: dictation.busy or window.composer.edit.toPlainText(), 30, "work")
        await wait_until(lambda: not dictation.busy, 240, "the words")
        text = window.composer.edit.toPlainText().lower()
        assert "milk" in text and "coffee" in text, (text, window.composer.hint.text())
        assert text.index("coffee") < text.index("milk")
        assert worker.process is not None and worker.process.pid != first.pid
    finally:
        await close_test_window(window)


async def test_the_dictate_keys_pressed_once_toggle_and_held_talk_until_let_go(
    tmp_path: Path,
) -> None:
    window = await _open(tmp_path)
    try:
        dictation = _dictation(window)
        edit = window.composer.edit
        edit.setFocus()
        dictation.recorder_factory = lambda: FileRecorder(_speech("Close the garage door."))
        keys = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
        QTest.keyClick(edit, Qt.Key.Key_D, keys)  # pressed once: listens on
        assert dictation.listening
        QTest.keyClick(edit, Qt.Key.Key_D, keys)  # and again: stops
        assert not dictation.listening
        await wait_until(lambda: not dictation.busy, 120, "the words")
        assert "door" in edit.toPlainText().lower(), (
            edit.toPlainText(),
            window.composer.hint.text(),
        )
        edit.clear()

        dictation.recorder_factory = lambda: FileRecorder(_speech("Open the front gate."))
        QTest.keyPress(edit, Qt.Key.Key_D, keys)
        assert dictation.listening
        await asyncio.sleep(0.6)
        assert dictation.listening
        QTest.keyRelease(edit, Qt.Key.Key_D, keys)  # held: letting go stops
        assert not dictation.listening
        await wait_until(lambda: "gate" in edit.toPlainText().lower(), 60, "the held words")
        assert window.chat_vm.model.rowCount() == 0
        edit.clear()

        # Held with the focus elsewhere (the thread list): letting go there stops too.
        threads = find(window, QListView, "threadList")
        threads.setFocus()
        dictation.recorder_factory = lambda: FileRecorder(_speech("Water the plants."))
        QTest.keyPress(threads, Qt.Key.Key_D, keys)
        assert dictation.listening
        await asyncio.sleep(0.6)
        QTest.keyRelease(threads, Qt.Key.Key_D, keys)
        assert not dictation.listening
        await wait_until(lambda: "plant" in edit.toPlainText().lower(), 60, "the words held there")
    finally:
        await close_test_window(window)
