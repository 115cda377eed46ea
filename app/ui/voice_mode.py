"""A voice conversation (``voiceModeButton``): while it is on, what is dictated is sent as soon
as it is transcribed, each reply is read aloud as it streams, and a tool call waiting for
approval is also asked aloud ("Researcher wants to use write file. Approve?"); the answer is
still a click or a key in the approval dialog, never a word. Esc stops the reading, and so does
speaking: while a reply is read, the microphone listens, and a voice louder than
:data:`INTERRUPT_LEVEL` for :data:`INTERRUPT_S` of the last :data:`INTERRUPT_WINDOW_S` stops
the reading and becomes the next dictation, from its first word, ended by a pause and sent."""

from __future__ import annotations

from collections import deque

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QPushButton, QWidget

from app.services.events import ApprovalNeeded
from app.ui.chat.viewmodel import ChatViewModel
from app.ui.dictation import Dictation, narrow
from app.ui.icons import icon_button
from app.ui.read_aloud import READING_HINT, ReadAloud
from app.ui.speech_input import RATE, Recorder, level_of

__all__ = ["INTERRUPT_LEVEL", "INTERRUPT_S", "INTERRUPT_WINDOW_S", "VoiceMode", "approval_question"]

INTERRUPT_LEVEL = 0.5
"""How loud (about -30 dBFS) a voice must be to interrupt a reply: above dictation's speech
level, so that the reply's own sound, fainter where it reaches the microphone, does not."""
INTERRUPT_S = 0.3
"""How long it must be that loud (the gaps between words aside)..."""
INTERRUPT_WINDOW_S = 0.5
"""...within this much of the latest sound."""
WATCH_MS = 50
EAR_KEEPS_S = 20
TALKING_HINT = "Reading aloud… speak, or press Esc, to interrupt."


def approval_question(event: ApprovalNeeded, own_agent: str) -> str:
    """What is said aloud when calls wait for approval."""
    first = event.requests[0]
    who = first.agent or own_agent
    if len(event.requests) == 1:
        return f"{who} wants to use {first.tool.replace('_', ' ')}. Approve?"
    return f"{who} wants to run {len(event.requests)} tools. Approve?"


class VoiceMode(QObject):
    """The voice conversation switch; the window places :attr:`button`."""

    def __init__(
        self,
        chat_vm: ChatViewModel,
        dictation: Dictation,
        read_aloud: ReadAloud,
        parent: QWidget,
        *,
        agent_name: str = "The agent",
    ) -> None:
        super().__init__(parent)
        self._dictation = dictation
        self._read_aloud = read_aloud
        self._agent_name = agent_name
        self.button = QPushButton("Voice", parent)
        self.button.setObjectName("voiceModeButton")
        icon_button(
            self.button,
            "voiceprint-line",
            "Voice conversation",
            "Voice conversation: what you dictate is sent, and replies are read aloud",
        )
        self.button.setCheckable(True)
        narrow(self.button, "Voice")
        self.button.toggled.connect(self._toggled)
        chat_vm.statusChanged.connect(self._status)
        chat_vm.approvalNeeded.connect(self._approval)
        self._watch = QTimer(self)
        self._watch.setInterval(WATCH_MS)
        self._watch.timeout.connect(self._listen_for_interruption)
        self._ear: Recorder | None = None
        """The microphone listening while a reply is read, if any."""
        self._loud: deque[bool] = deque(maxlen=round(INTERRUPT_WINDOW_S * 1000 / WATCH_MS))
        self._no_microphone = False

    @property
    def active(self) -> bool:
        """Whether a voice conversation is on."""
        return self.button.isChecked()

    def _toggled(self, on: bool) -> None:
        self._dictation.send_when_done = on
        self._no_microphone = False
        self._read_aloud.hint = TALKING_HINT if on else READING_HINT
        if on:
            self._watch.start()
        else:
            self._watch.stop()
            self._close_ear()
            self._read_aloud.stop()

    def _listen_for_interruption(self) -> None:
        """While a reply is read (and nobody dictates), listen; a voice interrupts it."""
        if not self._read_aloud.reading or self._dictation.listening or self._dictation.busy:
            self._close_ear()
            return
        if self._ear is None:
            if self._no_microphone:
                return
            ear = self._dictation.recorder_factory()
            if ear.start() is not None:
                self._no_microphone = True  # Esc still stops; dictating says why it cannot
                return
            self._ear = ear
            self._loud.clear()
            return
        heard = self._ear.heard()
        self._loud.append(level_of(heard) >= INTERRUPT_LEVEL)
        if sum(self._loud) * WATCH_MS / 1000 >= INTERRUPT_S:
            ear, self._ear = self._ear, None
            self._read_aloud.stop()
            self._dictation.take_over(ear)
        elif len(heard) > EAR_KEEPS_S * RATE * 2 and not any(self._loud):
            self._close_ear()  # a long quiet reading: opened afresh, so the sound kept stays short

    def _close_ear(self) -> None:
        if self._ear is not None:
            ear, self._ear = self._ear, None
            ear.cancel()

    def _status(self, status: str) -> None:
        if self.active and status == "running" and not self._read_aloud.reading:
            self._read_aloud.follow_next()

    def _approval(self, event: object) -> None:
        if self.active and isinstance(event, ApprovalNeeded) and event.requests:
            self._read_aloud.announce(approval_question(event, self._agent_name))
