"""``WindowAttachments``: attaching files and drawing media in one window.

The window builds one after its widgets exist, handing it the attachment service, the chat's
view model, the chat view, the composer and the widgets files may be dropped on; it owns the
tray of pending attachments (whose bar the window places in the composer), the
drop/paste/dialog intake, the thumbnail cache the chat draws from, and the media actions
behind the chat's ``media:`` links. The window wires its slots
(:meth:`WindowAttachments.on_link`, :meth:`WindowAttachments.extend_menu`) to the chat.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QPointF
from PySide6.QtGui import QHelpEvent
from PySide6.QtWidgets import QMenu, QToolTip, QWidget

from app.core.state import ContentBlock, DataBlock, DocumentBlock, ImageBlock, Message
from app.services.attachments.service import AttachmentService
from app.ui.attachments.describe import describe, file_name
from app.ui.attachments.intake import AttachmentIntake
from app.ui.attachments.thumbs import ThumbnailCache
from app.ui.attachments.tray import AttachmentTray
from app.ui.chat.links import MediaAction, parse_link
from app.ui.chat.media_actions import MediaActions
from app.ui.chat.view import ChatView
from app.ui.chat.viewmodel import ChatViewModel
from app.ui.composer import ComposerPanel
from app.ui.notifier import Notifier
from app.ui.tasks import spawn

if TYPE_CHECKING:
    from app.ui.attachments.video_frames import VideoFrameSource

__all__ = ["WindowAttachments"]

_VERBS = {
    "image": (("view", "View {name}"), ("copy", "Copy {name}"), ("save", "Save {name} as…")),
    "document": (
        ("open", "Open {name}"),
        ("text", "Show the text of {name}"),
        ("copy", "Copy the text of {name}"),
        ("save", "Save {name} as…"),
    ),
    "audio": (("play", "Play {name}"), ("save", "Save {name} as…")),
    "video": (("play", "Play {name}"), ("save", "Save {name} as…")),
    "data": (("save", "Save {name} as…"),),
}


class WindowAttachments(QObject):
    """Everything about attachments in one window; see the module docstring."""

    def __init__(
        self,
        service: AttachmentService,
        chat_vm: ChatViewModel,
        chat: ChatView,
        composer: ComposerPanel,
        drop_targets: tuple[QWidget, QWidget],
        notifier: Notifier,
        parent: QWidget,
    ) -> None:
        super().__init__(parent)
        self._service = service
        self._chat_vm = chat_vm
        self._chat = chat
        self._notifier = notifier
        stack, empty = drop_targets
        self.tray = AttachmentTray(service, chat_vm.thread_model, self)
        self.intake = AttachmentIntake(self.tray, stack, composer.edit, self)
        self.intake.watch(chat.viewport(), empty, composer.edit.viewport())
        self.intake.on_tooltip = self._tooltip
        self.thumbs = ThumbnailCache(service, parent=self)
        self.actions = MediaActions(service, chat, parent)
        self.actions.notice.connect(self._notice)
        self._frames: VideoFrameSource | None = None
        service.use_video_frames(self._video_frame)

    async def _video_frame(self, data: bytes, name: str, at: float) -> bytes | None:
        """A video's thumbnail, decoded by Qt Multimedia (loaded with the first video)."""
        if self._frames is None:
            from app.ui.attachments.video_frames import VideoFrameSource

            self._frames = VideoFrameSource(self)
        return await self._frames(data, name, at)

    def _notice(self, text: str) -> None:
        self._notifier.show(text, timeout_ms=5000)

    def thread_opened(self, _thread_id: str) -> None:
        """Another thread is open: say what its model will not see."""
        self.refresh_fit()

    def refresh_fit(self) -> None:
        """Say again what the thread's model will not see (its model changed)."""
        spawn(self.tray.refresh_fit())

    def pick(self) -> None:
        """Attach… : choose files in a dialog."""
        window = self.parent()
        assert isinstance(window, QWidget)
        spawn(self.intake.pick(window))

    def blocks_to_send(self) -> list[ContentBlock] | None:
        """The attachments to send with the message, or ``None`` (and a notice) while a file
        is still being read."""
        waiting = [chip.name for chip in self.tray.chips if chip.busy]
        if waiting:
            self._notifier.show(
                f"{waiting[0]} is still being read: wait a moment, or remove it to send now.",
                level="warning",
                timeout_ms=5000,
            )
            return None
        return self.tray.blocks()

    async def notes_for(self, blocks: list[ContentBlock]) -> list[str]:
        """What the open thread's model will not see of ``blocks`` (kept on the message)."""
        spec = await self._chat_vm.thread_model() if blocks else None
        return await self._service.left_out(blocks, spec) if spec else []

    def on_link(self, href: str, row: int) -> None:
        """A link in a message was activated: carry out an attachment's action."""
        intent = parse_link(href)
        message = self._chat_vm.model.message_at(row)
        if isinstance(intent, MediaAction) and message is not None:
            n = intent.index
            block = message.content[n] if n < len(message.content) else None
            verbs = _VERBS.get(block.type, ()) if block is not None else ()
            if any(verb == intent.action for verb, _ in verbs):  # only an attachment's own
                self._run(intent.action, message, n)

    def extend_menu(self, menu: QMenu, message: Message, _row: int) -> None:
        """A message's menu also offers what its attachments' links do (for the keyboard)."""
        for index, block in enumerate(message.content):
            verbs = _VERBS.get(block.type)
            if verbs is None or (isinstance(block, DataBlock) and block.media is None):
                continue
            if isinstance(block, DocumentBlock) and not block.text:
                verbs = tuple(v for v in verbs if v[0] not in ("text", "copy"))
            name = file_name(block)
            for action, label in verbs:
                text = label.format(name=name)
                menu.addAction(text, partial(self._run, action, message, index))

    def _tooltip(self, watched: QObject, event: QHelpEvent) -> bool:
        """Hovering an attachment in the chat shows what it is (an image's alt text)."""
        chat = self._chat
        if watched is chat.viewport():
            index = chat.indexAt(event.pos())
            message = self._chat_vm.model.message_at(index.row())
            href = chat.delegate.href_at(index, QPointF(event.pos())) if message else ""
            intent = parse_link(href)
            if (
                isinstance(intent, MediaAction)
                and message is not None
                and intent.index < len(message.content)
            ):
                block = message.content[intent.index]
                alt = block.alt_text if isinstance(block, ImageBlock) else None
                QToolTip.showText(event.globalPos(), alt or describe(block), chat.viewport())
                return True
        return False

    def _run(self, action: str, message: Message, index: int) -> None:
        spawn(self.actions.run(action, message, index))

    def close(self) -> None:
        """The window closes: close viewers and players, remove opened copies."""
        self._service.use_video_frames(None)
        self.actions.close()
        self.thumbs.close()
        self.tray.close()
        self.intake.close()
        self.intake.on_tooltip = None
