"""A voice conversation (``voiceModeButton``): while it is on, what is dictated is sent as soon
as it is transcribed, each reply is read aloud as it streams, and a tool call waiting for
approval is also asked aloud ("Researcher wants to use write file. Approve?"); the answer is
still a click or a key in the approval dialog, never a word. Esc stops the reading."""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QPushButton, QWidget

from app.services.events import ApprovalNeeded
from app.ui.chat.viewmodel import ChatViewModel
from app.ui.dictation import Dictation, narrow
from app.ui.icons import icon_button
from app.ui.read_aloud import ReadAloud

__all__ = ["VoiceMode", "approval_question"]


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

    @property
    def active(self) -> bool:
        """Whether a voice conversation is on."""
        return self.button.isChecked()

    def _toggled(self, on: bool) -> None:
        self._dictation.send_when_done = on
        if not on:
            self._read_aloud.stop()

    def _status(self, status: str) -> None:
        if self.active and status == "running" and not self._read_aloud.reading:
            self._read_aloud.follow_next()

    def _approval(self, event: object) -> None:
        if self.active and isinstance(event, ApprovalNeeded) and event.requests:
            self._read_aloud.announce(approval_question(event, self._agent_name))
