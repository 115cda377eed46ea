"""Read aloud: a reply's **Read aloud** (its menu) and Ctrl+Shift+R (the last reply) speak it on
this computer with the voice service, one sentence after another, each played as soon as it
is made (a reply still streaming is read as it grows, each sentence once it is complete);
code blocks and formulas are announced, links read as their text. Ctrl+Shift+R
again, Esc in the message box, or the menu's **Stop reading aloud** stops.

The loudspeaker is a :class:`Speaker`; :attr:`ReadAloud.speaker_factory` makes the one used
(Qt Multimedia's default output).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QMenu, QWidget

from app.core.errors import ParleyError
from app.core.state import Message
from app.services.voice.reading import readable, sentences
from app.ui.tasks import spawn

if TYPE_CHECKING:
    from app.services.voice.service import VoiceService
    from app.ui.chat.viewmodel import ChatViewModel
    from app.ui.composer import ComposerPanel

__all__ = ["READING_HINT", "QtSpeaker", "ReadAloud", "Speaker"]

READING_HINT = "Reading aloud… Ctrl+Shift+R or Esc stops."


class Speaker(Protocol):
    """Where spoken sentences are played, one after another."""

    def play(self, wav: bytes) -> None:
        """Queue one sentence's sound (a WAV file's bytes)."""

    def stop(self) -> None:
        """Stop playing and drop what is queued."""


class QtSpeaker:
    """The default loudspeaker through Qt Multimedia; sentences play in turn."""

    def __init__(self) -> None:
        from PySide6.QtMultimedia import QAudioOutput, QMediaPlayer

        self._player: Any = QMediaPlayer()
        self._output = QAudioOutput()
        self._player.setAudioOutput(self._output)
        self._player.mediaStatusChanged.connect(self._status)
        self._queue: list[bytes] = []
        self._buffer: Any = None

    def play(self, wav: bytes) -> None:
        """Queue ``wav``; it plays when the sentence before it ends."""
        self._queue.append(wav)
        from PySide6.QtMultimedia import QMediaPlayer

        if self._player.playbackState() != QMediaPlayer.PlaybackState.PlayingState:
            self._next()

    def _next(self) -> None:
        from PySide6.QtCore import QBuffer, QByteArray, QUrl

        if not self._queue:
            return
        self._buffer = QBuffer()
        self._buffer.setData(QByteArray(self._queue.pop(0)))
        self._buffer.open(QBuffer.OpenModeFlag.ReadOnly)
        self._player.setSourceDevice(self._buffer, QUrl("speech.wav"))
        self._player.play()

    def _status(self, status: Any) -> None:
        from PySide6.QtMultimedia import QMediaPlayer

        if status == QMediaPlayer.MediaStatus.EndOfMedia:
            self._next()

    def stop(self) -> None:
        """Stop and forget the queue."""
        self._queue.clear()
        self._player.stop()


class ReadAloud(QObject):
    """Read aloud in one window; see the module docstring."""

    def __init__(
        self,
        voice: VoiceService,
        chat_vm: ChatViewModel,
        composer: ComposerPanel,
        parent: QWidget,
    ) -> None:
        super().__init__(parent)
        self._voice = voice
        self._vm = chat_vm
        self._composer = composer
        self.speaker_factory: Callable[[], Speaker] = QtSpeaker
        self.choice: Callable[[], tuple[str | None, float]] = lambda: (None, 1.0)
        """The voice (``None``: the first installed) and speed to read with (Settings > Voice)."""
        self.hint = READING_HINT
        """What the message box says while reading."""
        self._speaker: Speaker | None = None
        self._task: asyncio.Task[None] | None = None
        self._queue: asyncio.Queue[str | None] = asyncio.Queue()
        self._following: str | None = None
        """The id of the streaming reply being read as it grows, if any."""
        self._spoken = 0
        self._next_after: str | None = None
        """Waiting for the next reply: the id of the last one before it ("" for none)."""
        composer.edit.escapePressed.connect(self.stop)
        chat_vm.model.dataChanged.connect(lambda *_: self._advance(final=False))
        chat_vm.model.rowsInserted.connect(lambda *_: self._advance(final=False))
        chat_vm.statusChanged.connect(self._status)

    @property
    def reading(self) -> bool:
        """Whether a reply is being read aloud."""
        return self._task is not None and not self._task.done()

    def extend_menu(self, menu: QMenu, message: Message, _row: int) -> None:
        """Add **Read aloud** (or **Stop reading aloud**) to a reply's menu."""
        if self.reading:
            menu.addAction("Stop reading aloud", self.stop).setObjectName("stopReadingAction")
        if message.role == "assistant" and message.text().strip():
            action = menu.addAction("Read aloud", lambda: self.read(message.text()))
            action.setObjectName("readAloudAction")

    def _last_reply(self) -> Message | None:
        messages = self._vm.model.messages()
        last = messages[-1] if messages else None
        return last if last is not None and last.role == "assistant" else None

    def toggle_last(self) -> None:
        """Read the last reply aloud, or stop reading (Ctrl+Shift+R). A reply still
        streaming is read as it grows, each sentence once it is complete."""
        if self.reading:
            self.stop()
            return
        last = self._last_reply()
        if self._vm.status() == "running" and last is not None:
            self._begin()
            self._following = str(last.message_id)
            self._advance(final=False)
            return
        replies = [m for m in self._vm.model.messages() if m.role == "assistant" and m.text()]
        if replies:
            self.read(replies[-1].text())

    def follow_next(self) -> None:
        """Read the next reply aloud as it streams, and any after it in the same run (a
        voice conversation)."""
        last = self._last_reply()
        self._begin()
        self._next_after = "" if last is None else str(last.message_id)
        self._advance(final=False)

    def announce(self, text: str) -> None:
        """Say ``text`` after what is being said of a followed reply (now, otherwise)."""
        if not self.reading or (self._following is None and self._next_after is None):
            self.read(text)
            return
        for sentence in sentences(text):  # the reply being followed goes on after it
            self._queue.put_nowait(sentence)

    def read(self, text: str) -> None:
        """Speak ``text`` (Markdown), sentence by sentence."""
        self._begin()
        for sentence in sentences(readable(text)):
            self._queue.put_nowait(sentence)
        self._queue.put_nowait(None)

    def _begin(self) -> None:
        self.stop()
        self._queue = asyncio.Queue()
        self._spoken = 0
        self._task = spawn(self._speak(self._queue))

    def _status(self, status: str) -> None:
        if status not in ("running", "waiting"):
            self._advance(final=True)

    def _advance(self, *, final: bool) -> None:
        """Queue the followed replies' sentences that are now complete: a newer reply in the
        same run (after a tool call) takes over once the one before it is said."""
        last = self._last_reply()
        if self._next_after is not None:
            if final:  # the run ended with no new reply
                self._next_after = None
                self._queue.put_nowait(None)
                return
            if last is None or str(last.message_id) == self._next_after:
                return
            self._next_after = None
            self._following = str(last.message_id)
        if self._following is None:
            return
        if last is not None and str(last.message_id) != self._following:
            self._say_rest(self._following)
            self._following, self._spoken = str(last.message_id), 0
        parts = sentences(readable(last.text())) if last is not None else []
        done = parts if final else parts[:-1]
        for sentence in done[self._spoken :]:
            self._queue.put_nowait(sentence)
        self._spoken = max(self._spoken, len(done))
        if final:
            self._queue.put_nowait(None)
            self._following = None

    def _say_rest(self, message_id: str) -> None:
        """Queue what is left of an earlier reply now that a newer one follows it."""
        for message in self._vm.model.messages():
            if str(message.message_id) == message_id:
                for sentence in sentences(readable(message.text()))[self._spoken :]:
                    self._queue.put_nowait(sentence)
                return

    def stop(self) -> None:
        """Stop reading aloud."""
        self._following = self._next_after = None
        if self._task is not None:
            self._task.cancel()
            self._task = None
        if self._speaker is not None:
            self._speaker.stop()
        if self._composer.hint.text().startswith("Reading aloud"):
            self._composer.set_hint("")

    async def _speak(self, queue: asyncio.Queue[str | None]) -> None:
        if self._speaker is None:
            self._speaker = self.speaker_factory()
        self._composer.set_hint(self.hint)
        try:
            while (sentence := await queue.get()) is not None:
                voice, speed = self.choice()
                self._speaker.play(await self._voice.say(sentence, voice, speed))
        except ParleyError as exc:
            self._composer.set_hint(str(exc))
            return
        self._composer.set_hint("")
