"""``WindowAttachments``: attaching files and drawing media, hooked into the main window.

The window builds one after its widgets exist; it owns the tray of pending attachments, the
drop/paste/dialog intake, the thumbnail cache the chat draws from, and the media actions
behind the chat's ``media:`` links.
"""

from __future__ import annotations

import weakref
from functools import partial
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QPointF
from PySide6.QtGui import QHelpEvent
from PySide6.QtWidgets import QMenu, QToolTip

from app.core.errors import ParleyError
from app.core.state import ContentBlock, DataBlock, DocumentBlock, ImageBlock, Message
from app.ui.attachments.describe import describe, file_name
from app.ui.attachments.intake import AttachmentIntake
from app.ui.attachments.thumbs import ThumbnailCache
from app.ui.attachments.tray import AttachmentTray
from app.ui.chat.blocks.actions import MediaActions
from app.ui.tasks import spawn

if TYPE_CHECKING:
    from app.ui.window import MainWindow

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

    def __init__(self, window: MainWindow) -> None:
        super().__init__(window)
        # weak: a strong reference here would tie the window into a reference cycle, and the
        # cycle collector would then destroy it at an arbitrary moment (even mid-event)
        self._window_ref = weakref.ref(window)
        service = window.workspace.attachments
        self.tray = AttachmentTray(service, window.composer.attachment_bar, self._spec, self)
        self.intake = AttachmentIntake(self.tray, window.stack, window.composer.edit, self)
        self.intake.watch(window.chat.viewport(), window.empty, window.composer.edit.viewport())
        self.thumbs = ThumbnailCache(service, parent=self)
        window.chat.delegate.use_thumbnails(self.thumbs)
        self.actions = MediaActions(service, window)
        self.actions.chat = window.chat
        self.actions.notice.connect(self._notice)
        window.chat.delegate.linkActivated.connect(self._on_link)
        window.chat.menu_extensions.append(self._extend_menu)
        self.intake.on_tooltip = self._tooltip
        window.chat_vm.threadOpened.connect(self._thread_opened)
        window.composer.allow_empty = self.tray.has_chips

    @property
    def _window(self) -> MainWindow:
        window = self._window_ref()
        if window is None:
            raise RuntimeError("the window is gone")
        return window

    async def _spec(self) -> str | None:
        thread_id = self._window.chat_vm.thread_id
        if thread_id is None:
            return self._window.workspace.settings.current.default_model
        try:
            thread = await self._window.workspace.threads.get(thread_id)
        except ParleyError:
            return None
        return thread.model or self._window.workspace.settings.current.default_model

    def _thread_opened(self, _thread_id: str) -> None:
        self.refresh_fit()

    def _notice(self, text: str) -> None:
        self._window.notice.show_message(text, timeout_ms=5000)

    def refresh_fit(self) -> None:
        """Say again what the thread's model will not see (its model changed)."""
        spawn(self.tray.refresh_fit())

    def pick(self) -> None:
        """Attach… : choose files in a dialog."""
        spawn(self.intake.pick(self._window))

    def blocks_to_send(self) -> list[ContentBlock] | None:
        """The attachments to send with the message, or ``None`` (and a notice) while a file
        is still being read."""
        waiting = [chip.name for chip in self.tray.chips if chip.busy]
        if waiting:
            self._window.notice.show_message(
                f"{waiting[0]} is still being read: wait a moment, or remove it to send now.",
                level="warning",
                timeout_ms=5000,
            )
            return None
        return self.tray.blocks()

    async def notes_for(self, blocks: list[ContentBlock]) -> list[str]:
        """What the open thread's model will not see of ``blocks`` (kept on the message)."""
        spec = await self._spec() if blocks else None
        return await self._window.workspace.attachments.left_out(blocks, spec) if spec else []

    def _on_link(self, href: str, row: int) -> None:
        kind, _, rest = href.partition(":")
        action, _, index = rest.partition(":")
        message = self._window.chat_vm.model.message_at(row)
        if kind == "media" and message is not None and index.isdigit():
            self._run(action, message, int(index))

    def _extend_menu(self, menu: QMenu, message: Message, _row: int) -> None:
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
        if watched is self._window.chat.viewport():
            chat = self._window.chat
            index = chat.indexAt(event.pos())
            message = self._window.chat_vm.model.message_at(index.row())
            href = chat.delegate.href_at(index, QPointF(event.pos())) if message else ""
            kind, _, rest = href.partition(":")
            number = rest.rpartition(":")[2]
            if kind == "media" and message is not None and number.isdigit():
                block = message.content[int(number)]
                alt = block.alt_text if isinstance(block, ImageBlock) else None
                QToolTip.showText(event.globalPos(), alt or describe(block), chat.viewport())
                return True
        return False

    def _run(self, action: str, message: Message, index: int) -> None:
        spawn(self.actions.run(action, message, index))

    def close(self) -> None:
        """The window closes: close viewers and players, remove opened copies."""
        self.actions.close()
        self.thumbs.close()
        self.tray.close()
        self.intake.close()
        self.intake.on_tooltip = None
        self._window.chat.menu_extensions.clear()
        self._window.composer.allow_empty = lambda: False
