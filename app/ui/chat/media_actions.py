"""What clicking a media block in the chat does: view an image, play a clip, open a document
with the system's app, save any file (``media:ACTION:N`` links, N the block's index)."""

from __future__ import annotations

import asyncio
import re
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices, QGuiApplication, QImage
from PySide6.QtWidgets import QDialog, QFileDialog, QWidget

from app.core.state import (
    AudioBlock,
    ContentBlock,
    DocumentBlock,
    ImageBlock,
    Message,
    VideoBlock,
)
from app.ui.attachments.describe import chip_detail, file_name
from app.ui.attachments.thumbs import decode_image
from app.ui.chat.blocks.document import outlined
from app.ui.chat.blocks.media_html import outline_box
from app.ui.chat.blocks.text_viewer import TextViewer
from app.ui.chat.blocks.viewer import ImageViewer
from app.ui.chat.links import MediaAction, href_of
from app.ui.file_dialogs import chosen_paths, file_dialog
from app.ui.theme import is_dark

if TYPE_CHECKING:
    from app.services.attachments.service import AttachmentService
    from app.ui.chat.player import PlayerDock
    from app.ui.chat.view import ChatView

__all__ = ["MediaActions"]


class MediaActions(QObject):
    """Carries out ``media:`` links for the chat view; reports through :attr:`notice`."""

    notice = Signal(str)
    """A sentence for the user (e.g. a file could not be saved)."""

    def __init__(self, service: AttachmentService, chat: ChatView, parent: QWidget) -> None:
        super().__init__(parent)
        self._service = service
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        self.windows: list[QDialog] = []
        """The viewer and player windows opened (and not yet closed)."""
        self.save_dialog: QFileDialog | None = None
        self.chat = chat
        """The chat view clips play in."""
        self.dock: PlayerDock | None = None
        """Lays the playing clip's player over its row (made on the first play)."""

    @property
    def _parent(self) -> QWidget | None:
        parent = self.parent()
        return parent if isinstance(parent, QWidget) else None

    async def run(self, action: str, message: Message, index: int) -> None:
        """Do ``action`` (view, play, open, save) on block ``index`` of ``message``."""
        if not 0 <= index < len(message.content):
            return
        block = message.content[index]
        if action == "view" and isinstance(block, ImageBlock):
            await self._view(block)
        elif action == "play" and isinstance(block, AudioBlock | VideoBlock):
            await self._play(block, message, index)
        elif action == "open":
            path = await self._file(block)
            if path is not None and not QDesktopServices.openUrl(QUrl.fromLocalFile(str(path))):
                self.notice.emit(f"No application on this computer opens {path.name}.")
        elif action == "text" and isinstance(block, DocumentBlock) and block.text:
            detail = chip_detail(block)
            self._show(TextViewer(file_name(block), block.text, detail, self._parent))
        elif action == "copy":
            await self._copy(block)
        elif action == "save":
            await self._save(block)

    async def _play(self, block: AudioBlock | VideoBlock, message: Message, index: int) -> None:
        """Play the clip inside its row of the chat (one plays at a time)."""
        view = self.chat
        row = None if view is None else view.vm.model.row_of(str(message.message_id))
        path = await self._file(block)
        if path is None or view is None or row is None:
            return
        # QtMultimedia loads on the first play, not with the window
        from app.ui.chat.player import MediaPlayer, PlayerDock

        if self.dock is None:
            self.dock = PlayerDock(view)
        player = MediaPlayer(
            path,
            file_name(block),
            video=isinstance(block, VideoBlock),
            poster=await self._poster(block),
            dark=is_dark(view.palette()),
        )
        if self.dock.start(player, row, href_of(MediaAction("play", index))):
            player.play()
        else:
            self.notice.emit(f"Scroll to {file_name(block)} to play it.")

    def _show(self, window: QDialog) -> None:
        self.windows.append(window)
        window.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)  # a closed viewer is gone
        window.finished.connect(lambda _r: self.windows.remove(window))
        window.show()
        window.raise_()
        window.activateWindow()

    async def _view(self, block: ImageBlock) -> None:
        data = await self._service.media(block.original or block.media)
        image = None if data is None else await asyncio.to_thread(decode_image, data)
        if image is None:
            self.notice.emit(f"{file_name(block)} can no longer be shown: its file is missing.")
            return
        box = outline_box(block)
        if box:
            image = outlined(image, box)
        self._show(ImageViewer(image, file_name(block), self._parent))

    async def _copy(self, block: ContentBlock) -> None:
        if isinstance(block, DocumentBlock) and block.text:
            QGuiApplication.clipboard().setText(block.text.replace("\f", "\n\n"))
            self.notice.emit(f"Copied the text of {file_name(block)}.")
        elif isinstance(block, ImageBlock):
            data = await self._service.media(block.original or block.media)
            image = None if data is None else await asyncio.to_thread(decode_image, data)
            if image is not None:
                QGuiApplication.clipboard().setImage(image)
                self.notice.emit(f"Copied {file_name(block)}.")

    async def _poster(self, block: ContentBlock) -> QImage | None:
        if not isinstance(block, VideoBlock) or block.thumbnail is None:
            return None
        data = await self._service.media(block.thumbnail)
        return None if data is None else await asyncio.to_thread(decode_image, data)

    async def _file(self, block: ContentBlock) -> Path | None:
        ref = getattr(block, "media", None)
        if isinstance(block, ImageBlock):
            ref = block.original or block.media
        data = await self._service.media(ref)
        if data is None:
            self.notice.emit(f"{file_name(block)} is no longer in Parley's store.")
            return None
        if self._tmp is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="parley-open-")
        key = (getattr(ref, "file_id", None) or "file")[:12]
        safe = re.sub(r"[^\w.\- ]", "_", file_name(block)) or "file"
        folder = Path(self._tmp.name) / key
        path = folder / safe
        await asyncio.to_thread(_write, path, data)
        return path

    async def _save(self, block: ContentBlock) -> None:
        ref = getattr(block, "media", None)
        dialog = file_dialog(self._parent, "Save attachment", "saveAttachmentDialog")
        dialog.setAcceptMode(QFileDialog.AcceptMode.AcceptSave)
        dialog.selectFile(file_name(block))
        self.save_dialog = dialog
        try:
            chosen = await chosen_paths(dialog)
        finally:
            self.save_dialog = None
        if not chosen:
            return
        target = chosen[0]
        try:
            await self._service.save_media(ref, target)
        except (OSError, LookupError) as exc:
            reason = getattr(exc, "strerror", None) or str(exc)
            self.notice.emit(f"Could not save {Path(target).name}: {reason}.")
            return
        self.notice.emit(f"Saved {Path(target).name}.")

    def close(self) -> None:
        """Close the open windows and the player, and remove the files opened from the store."""
        if self.dock is not None:
            self.dock.stop()
        for window in list(self.windows):
            window.close()
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
