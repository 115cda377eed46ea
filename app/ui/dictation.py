"""Dictation in the message box: the microphone button (``dictateButton``) records while it is
pressed in, and when pressed again the recording is transcribed on this computer and its
words are put into the message box at the cursor, editable and not sent. Esc while listening
cancels. Nothing is sent anywhere: the voice service runs Whisper locally.

The microphone is a :class:`Recorder`; :attr:`Dictation.recorder_factory` makes the one used
(Qt Multimedia's default input). A missing or refused microphone is one sentence.
"""

from __future__ import annotations

import contextlib
import io
import wave
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QPushButton, QSizePolicy, QWidget

from app.core.errors import ParleyError
from app.services.voice.worker import SpeechProcessStopped
from app.ui.tasks import spawn

if TYPE_CHECKING:
    from app.services.voice.service import VoiceService
    from app.ui.composer import ComposerPanel

__all__ = ["Dictation", "MicrophoneRecorder", "Recorder", "narrow"]

RATE = 16_000
IDLE_TEXT = "Dictate"
LISTENING_TEXT = "■ Stop dictating"


class Recorder(Protocol):
    """Where dictated sound comes from."""

    def start(self) -> str | None:
        """Begin recording; a sentence saying why it cannot, else None."""

    def stop(self) -> bytes:
        """End recording; the sound as a WAV file's bytes."""

    def cancel(self) -> None:
        """End recording and drop the sound."""


def narrow(button: QPushButton, longest: str) -> None:
    """Let ``button`` give up room down to its text (the composer's row is full), and no
    further than ``longest``, the widest text it shows, when there is room."""
    text = button.fontMetrics().horizontalAdvance(button.text()) + 20
    button.setMinimumWidth(text)
    button.setMaximumWidth(max(text, button.fontMetrics().horizontalAdvance(longest) + 24))
    policy = button.sizePolicy()
    policy.setHorizontalPolicy(QSizePolicy.Policy.Preferred)
    button.setSizePolicy(policy)


def wav_bytes(pcm: bytes, rate: int = RATE) -> bytes:
    """16-bit mono PCM at ``rate`` as a WAV file's bytes."""
    out = io.BytesIO()
    with wave.open(out, "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(rate)
        wav.writeframes(pcm)
    return out.getvalue()


def pcm_of(wav: bytes) -> bytes:
    """The frames of a WAV file made by :func:`wav_bytes` (none when it is not one)."""
    try:
        with wave.open(io.BytesIO(wav)) as read:
            return bytes(read.readframes(read.getnframes()))
    except (wave.Error, EOFError):
        return b""


class MicrophoneRecorder:
    """The default microphone through Qt Multimedia, 16 kHz mono 16-bit."""

    def __init__(self) -> None:
        self._source: Any = None
        self._device: Any = None
        self._pcm = bytearray()

    def start(self) -> str | None:
        """Open the default microphone; a sentence when there is none or it is refused."""
        from PySide6.QtMultimedia import QAudio, QAudioFormat, QAudioSource, QMediaDevices

        device = QMediaDevices.defaultAudioInput()
        if device.isNull():
            return "No microphone was found; connect one (or allow Parley to use it) and try again."
        fmt = QAudioFormat()
        fmt.setSampleRate(RATE)
        fmt.setChannelCount(1)
        fmt.setSampleFormat(QAudioFormat.SampleFormat.Int16)
        self._pcm.clear()
        self._source = QAudioSource(device, fmt)
        self._device = self._source.start()
        if self._source.error() != QAudio.Error.NoError or self._device is None:
            self._source = None
            return "The microphone could not be opened; check that Parley may use it."
        self._device.readyRead.connect(self._read)
        return None

    def _read(self) -> None:
        if self._device is not None:
            self._pcm += bytes(self._device.readAll().data())

    def stop(self) -> bytes:
        """Close the microphone; what it heard, as WAV."""
        self._read()
        self.cancel()
        return wav_bytes(bytes(self._pcm))

    def cancel(self) -> None:
        """Close the microphone."""
        if self._source is not None:
            self._source.stop()
        self._source = self._device = None


class Dictation(QObject):
    """The dictate button and what it does; the window places :attr:`button`."""

    def __init__(self, voice: VoiceService, composer: ComposerPanel, parent: QWidget) -> None:
        super().__init__(parent)
        self._voice = voice
        self._composer = composer
        self.recorder_factory: Callable[[], Recorder] = MicrophoneRecorder
        self._recorder: Recorder | None = None
        self.button = QPushButton(IDLE_TEXT, parent)
        self.button.setObjectName("dictateButton")
        self.button.setAccessibleName("Dictate")
        self.button.setToolTip("Dictate (Ctrl+Shift+D): press to start, again to stop; Esc cancels")
        self.button.setCheckable(True)
        narrow(self.button, LISTENING_TEXT)
        self.button.toggled.connect(self._toggled)
        composer.edit.escapePressed.connect(self.cancel)
        self.busy = False
        """True while a recording is being transcribed."""
        self.send_when_done = False
        """Send the words as soon as they are in the box (a voice conversation)."""
        self._kept = b""
        """The sound of a recording whose transcription did not finish (the speech process
        stopped): it goes before the next recording's, so nothing said is lost."""

    @property
    def listening(self) -> bool:
        """Whether the microphone is recording."""
        return self._recorder is not None

    def _toggled(self, on: bool) -> None:
        if on:
            self._start()
        elif self._recorder is not None:
            recorder, self._recorder = self._recorder, None
            self.button.setText(IDLE_TEXT)
            spawn(self._transcribe(recorder.stop()))

    def _start(self) -> None:
        recorder = self.recorder_factory()
        problem = recorder.start()
        if problem is not None:
            self._composer.set_hint(problem)
            self.button.setChecked(False)
            return
        self._recorder = recorder
        self.button.setText(LISTENING_TEXT)
        spawn(self._prepare())
        self._composer.set_hint("Listening… press the button again to stop, Esc to cancel.")

    def cancel(self) -> None:
        """Stop listening and drop what was heard (Esc)."""
        if self._recorder is None:
            return
        recorder, self._recorder = self._recorder, None
        recorder.cancel()
        self.button.setChecked(False)
        self.button.setText(IDLE_TEXT)
        self._composer.set_hint("")

    async def _prepare(self) -> None:
        with contextlib.suppress(ParleyError):  # said when the recording is transcribed
            await self._voice.prepare_dictation()

    async def _transcribe(self, wav: bytes) -> None:
        self.busy = True
        self.button.setEnabled(False)
        self._composer.set_hint("Transcribing on this computer…")
        if self._kept:
            wav, self._kept = wav_bytes(self._kept + pcm_of(wav)), b""
        try:
            heard = await self._voice.dictate(wav)
        except SpeechProcessStopped as exc:
            self._kept = pcm_of(wav)
            self._composer.set_hint(
                f"{exc} What you said is kept and goes before your next dictation."
            )
            return
        except ParleyError as exc:
            self._composer.set_hint(str(exc))
            return
        finally:
            self.button.setEnabled(True)
            self.busy = False
        if not heard.text:
            self._composer.set_hint("No speech was heard.")
            return
        self._composer.set_hint("")
        edit = self._composer.edit
        cursor = edit.textCursor()
        before = edit.toPlainText()[: cursor.position()]
        joiner = " " if before and not before[-1].isspace() else ""
        cursor.insertText(joiner + heard.text)
        edit.setTextCursor(cursor)
        edit.setFocus(Qt.FocusReason.OtherFocusReason)
        if self.send_when_done:
            self._composer.send_button.click()
