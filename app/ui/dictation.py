"""Dictation in the message box: the microphone button (``dictateButton``) starts listening
when pressed; pressed again (or, held down, let go) the recording is transcribed on this
computer and its words are put into the message box at the cursor, editable and not sent.
While listening, a level meter (``dictateLevel``) shows how loud the sound is and the words
recognised so far appear in the box, replaced by the final text at the end. Esc cancels.
With "Send when I stop talking" on, a pause after speech ends the dictation and sends it.
Nothing is sent anywhere: the voice service runs Whisper locally, in a process of its own.

The microphone is a :class:`~app.ui.speech_input.Recorder`; :attr:`Dictation.recorder_factory`
makes the one used (Qt Multimedia's default input). A missing or refused microphone is one
sentence.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtGui import QKeyEvent, QMouseEvent
from PySide6.QtWidgets import QApplication, QProgressBar, QPushButton, QSizePolicy, QWidget

from app.core.errors import ParleyError
from app.services.voice.worker import SpeechProcessStopped
from app.ui.dictated_text import DictatedText
from app.ui.icons import icon_button
from app.ui.speech_input import (
    RATE,
    MicrophoneRecorder,
    Recorder,
    level_of,
    pcm_of,
    wav_bytes,
)
from app.ui.tasks import spawn

if TYPE_CHECKING:
    from app.services.voice.service import VoiceService
    from app.ui.composer import ComposerPanel

__all__ = ["Dictation", "MicrophoneRecorder", "Recorder", "narrow", "pcm_of", "wav_bytes"]

IDLE_TEXT = "Dictate"
LISTENING_TEXT = "■ Stop dictating"
TICK_MS = 50
"""How often the level meter and the pause watch look at the sound."""
FIRST_WORDS_S = 0.5
"""Speech heard before the words so far are first recognised (a word or two)."""
PARTIAL_STEP_S = 0.5
"""New sound needed before the words so far are recognised again."""
KEEP_AFTER_S = 20.0
"""The most sound one pass of the words so far covers: past it, the words recognised so far
are kept as they are and the next passes cover only the sound after them (one pass over a
recording longer than Whisper's 30-second window would take seconds)."""
SPEAKING_LEVEL = 0.35
"""The level (about -39 dBFS) above which the sound counts as speech."""
PAUSE_S = 1.2
"""Quiet after speech that ends the dictation, with "Send when I stop talking" on."""
HOLD_S = 0.4
"""A press held this long is hold-to-talk: letting go ends the dictation."""


def narrow(button: QPushButton, longest: str) -> None:
    """Let ``button`` give up room down to its text (the composer's row is full), and no
    further than ``longest``, the widest text it shows, when there is room."""
    room = 20 + (0 if button.icon().isNull() else button.iconSize().width() + 6)
    text = button.fontMetrics().horizontalAdvance(button.text()) + room
    button.setMinimumWidth(text)
    button.setMaximumWidth(max(text, button.fontMetrics().horizontalAdvance(longest) + room + 4))
    policy = button.sizePolicy()
    policy.setHorizontalPolicy(QSizePolicy.Policy.Preferred)
    button.setSizePolicy(policy)


class Dictation(QObject):
    """The dictate button, its level meter and what they do; the window places
    :attr:`button` and :attr:`level`."""

    def __init__(self, voice: VoiceService, composer: ComposerPanel, parent: QWidget) -> None:
        super().__init__(parent)
        self._voice = voice
        self._composer = composer
        self.recorder_factory: Callable[[], Recorder] = MicrophoneRecorder
        self._recorder: Recorder | None = None
        self.button = QPushButton(IDLE_TEXT, parent)
        self.button.setObjectName("dictateButton")
        icon_button(
            self.button,
            "mic-line",
            "Dictate",
            "Dictate (Ctrl+Shift+D): press to start, again to stop, or hold to talk; Esc cancels",
        )
        self.button.setCheckable(True)
        narrow(self.button, LISTENING_TEXT)
        self.button.toggled.connect(self._toggled)
        self.button.installEventFilter(self)
        self.level = QProgressBar(parent)
        self.level.setObjectName("dictateLevel")
        self.level.setAccessibleName("Microphone level")
        self.level.setRange(0, 100)
        self.level.setValue(0)
        self.level.setTextVisible(False)
        self.level.setFixedSize(40, 8)
        self.level.setVisible(False)
        self._tick_timer = QTimer(self)
        self._tick_timer.setInterval(TICK_MS)
        self._tick_timer.timeout.connect(self._tick)
        composer.edit.escapePressed.connect(self.cancel)
        self._text = DictatedText(composer.edit)
        self.busy = False
        """True while a recording is being transcribed."""
        self.send_when_done = False
        """Send the words as soon as they are in the box (a voice conversation)."""
        self.sends_on_pause: Callable[[], bool] = lambda: False
        """Whether a pause in speech ends the dictation and sends it ("Send when I stop
        talking"), asked as each dictation starts."""
        self._pause_sends = False
        self._kept = b""
        """The sound of a recording whose transcription did not finish (the speech process
        stopped): it goes before the next recording's, so nothing said is lost."""
        self._take = 0
        self._partial: asyncio.Task[None] | None = None
        self._preparing: asyncio.Task[None] | None = None
        self._partial_at = 0
        """How much sound (bytes of PCM) the words so far were last recognised from."""
        self._spoke_at = 0
        """How much sound there was when speech was first heard."""
        self._kept_at = 0
        self._kept_words = ""
        """The words so far kept as they are, and how much sound they cover."""
        self._so_far_at = 0
        self._so_far = ""
        """The words so far shown last, and how much sound they cover."""
        self._spoke = False
        self._quiet_from: float | None = None
        self._send_this = False
        self._held_from: float | None = None

    @property
    def listening(self) -> bool:
        """Whether the microphone is recording."""
        return self._recorder is not None

    # -- starting and stopping ----------------------------------------------------------

    def _toggled(self, on: bool) -> None:
        if on:
            self._start()
        elif self._recorder is not None:
            recorder, self._recorder = self._recorder, None
            self._stop_watching()
            self.busy = True
            spawn(self._transcribe(recorder.stop(), self._take))

    def _start(self) -> None:
        recorder = self.recorder_factory()
        problem = recorder.start()
        if problem is not None:
            self._composer.set_hint(problem)
            self.button.setChecked(False)
            return
        self._listen(recorder, pause_sends=self.sends_on_pause())

    def take_over(self, recorder: Recorder) -> None:
        """Go on with a recording already under way (someone began to speak while a voice
        conversation's reply was read): what it heard is kept, and a pause ends it."""
        if self.listening or self.busy:
            recorder.cancel()
            return
        self._listen(recorder, pause_sends=True)
        self.button.blockSignals(True)  # listening already: the button only shows it
        self.button.setChecked(True)
        self.button.blockSignals(False)

    def _listen(self, recorder: Recorder, *, pause_sends: bool) -> None:
        self._recorder = recorder
        self._take += 1
        self._partial_at, self._spoke_at, self._spoke, self._quiet_from = 0, 0, False, None
        self._kept_at, self._kept_words, self._so_far_at, self._so_far = 0, "", 0, ""
        self._send_this = self.send_when_done
        self._pause_sends = pause_sends
        self._text.begin()
        self.button.setText(LISTENING_TEXT)
        self.level.setValue(0)
        self.level.setVisible(True)
        self._tick_timer.start()
        self.prepare()
        self._composer.set_hint("Listening… press the button again to stop, Esc to cancel.")

    def _stop_watching(self) -> None:
        self._tick_timer.stop()
        self._let_go_watch()
        self._held_from = None
        self.level.setValue(0)
        self.level.setVisible(False)
        self.button.setText(IDLE_TEXT)

    def toggle(self) -> None:
        """Start listening, or stop and transcribe (the Dictate command)."""
        self.button.toggle()

    def cancel(self) -> None:
        """Stop listening and drop what was heard (Esc)."""
        if self._recorder is None:
            return
        recorder, self._recorder = self._recorder, None
        recorder.cancel()
        self._take += 1  # a partial still coming is dropped
        self._stop_watching()
        self.button.setChecked(False)
        self._text.drop()
        self._composer.set_hint("")

    # -- hold to talk --------------------------------------------------------------------

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Hold to talk: the button held down (or the Dictate keys held) records until let go.
        The pointer on the button (or the focus) starts Whisper, so the first words come soon."""
        kind = event.type()
        if watched is self.button and kind in (QEvent.Type.Enter, QEvent.Type.FocusIn):
            self.prepare()
        if watched is self.button and isinstance(event, QMouseEvent):
            if event.button() != Qt.MouseButton.LeftButton or not self.button.isEnabled():
                return False
            if kind == QEvent.Type.MouseButtonPress:
                if self.listening:
                    self.button.setChecked(False)
                else:
                    self.button.setChecked(True)
                    self._held_from = time.monotonic() if self.listening else None
                return True
            if kind in (QEvent.Type.MouseButtonRelease, QEvent.Type.MouseButtonDblClick):
                self._let_go()
                return True
        elif (
            isinstance(event, QKeyEvent)
            and kind == QEvent.Type.KeyRelease
            and event.key() == Qt.Key.Key_D
            and not event.isAutoRepeat()
        ):
            self._let_go()
        return False

    def key_pressed(self) -> None:
        """The Dictate keys went down: start (timing a hold) or stop."""
        if self.listening:
            self.button.setChecked(False)
            return
        self.button.setChecked(True)
        if self.listening:
            self._held_from = time.monotonic()
            # The keys are let go wherever the focus is: the whole application is watched
            # until then, not only the message box.
            app = QApplication.instance()
            if app is not None:
                app.installEventFilter(self)

    def _let_go_watch(self) -> None:
        app = QApplication.instance()
        if app is not None:
            app.removeEventFilter(self)

    def _let_go(self) -> None:
        self._let_go_watch()
        held, self._held_from = self._held_from, None
        if held is not None and self.listening and time.monotonic() - held >= HOLD_S:
            self.button.setChecked(False)

    # -- while listening -----------------------------------------------------------------

    def _tick(self) -> None:
        if self._recorder is None:
            return
        pcm = self._recorder.heard()
        level = level_of(pcm)
        self.level.setValue(round(100 * level))
        now = time.monotonic()
        if level >= SPEAKING_LEVEL:
            if not self._spoke:
                self._spoke_at = len(pcm)
            self._spoke, self._quiet_from = True, None
        elif self._spoke and self._quiet_from is None:
            self._quiet_from = now
        if self._pause_sends and self._quiet_from is not None and now - self._quiet_from >= PAUSE_S:
            self._send_this = True
            self.button.setChecked(False)
            return
        if not self._spoke or self._partial is not None:
            return
        if self._partial_at:
            due = self._partial_at + int(PARTIAL_STEP_S * RATE) * 2
        else:
            due = self._spoke_at + int(FIRST_WORDS_S * RATE) * 2
        if len(pcm) < due:
            return
        if self._so_far and len(pcm) - self._kept_at > int(KEEP_AFTER_S * RATE) * 2:
            self._kept_at, self._kept_words = self._so_far_at, self._so_far
        self._partial_at = len(pcm)
        self._partial = spawn(self._recognise_so_far(pcm, self._kept_at, self._take))

    async def _recognise_so_far(self, pcm: bytes, start: int, take: int) -> None:
        try:
            heard = await self._voice.dictated_so_far(pcm[start:])
        except ParleyError:
            return  # the final transcription says what is wrong
        finally:
            self._partial = None
        if take == self._take and self.listening and heard.text:
            self._so_far_at, self._so_far = len(pcm), f"{self._kept_words} {heard.text}".strip()
            self._text.show(self._so_far)

    def prepare(self) -> None:
        """Start the speech process and load Whisper now, if not yet done, so a dictation
        about to begin shows its first words sooner."""
        if self._preparing is None and self.button.isEnabled():
            self._preparing = spawn(self._prepare())

    async def _prepare(self) -> None:
        try:
            with contextlib.suppress(ParleyError):  # said when the recording is transcribed
                await self._voice.prepare_dictation()
        finally:
            self._preparing = None

    # -- at the end ------------------------------------------------------------------------

    async def _transcribe(self, wav: bytes, take: int) -> None:
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
        if take != self._take:
            return  # a new dictation began meanwhile; its words go where it placed them
        self._text.show(heard.text)
        if not heard.text:
            self._composer.set_hint("No speech was heard.")
            return
        self._composer.set_hint("")
        self._composer.edit.setFocus(Qt.FocusReason.OtherFocusReason)
        if self._send_this:
            self._composer.send_button.click()
