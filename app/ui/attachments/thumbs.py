"""``ThumbnailCache``: stored images decoded once, off the UI thread, kept in an LRU.

The chat delegate asks for a picture while painting; a miss returns ``None`` at once and
starts one load (stored bytes → a ``QImage`` scaled to fit, in a worker thread). When it is
ready, :attr:`ThumbnailCache.ready` names it and the view repaints. Scrolling a thread of
thousands of images only decodes what comes into sight, each once.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from typing import TYPE_CHECKING

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QObject, QSize, Qt, Signal
from PySide6.QtGui import QColor, QImage

from app.core.state import MediaRef
from app.ui.tasks import spawn
from app.ui.theme import LIGHT

if TYPE_CHECKING:
    from app.services.attachments.service import AttachmentService

__all__ = ["ThumbnailCache", "decode_image", "media_key"]


def media_key(ref: MediaRef | None) -> str:
    """The store key of ``ref`` (its SHA-256), or ``""`` when it has none."""
    if ref is None:
        return ""
    return ref.file_id or ref.sha256 or ""


def decode_image(data: bytes, box: QSize | None = None) -> QImage | None:
    """Decode ``data`` (thread-safe), scaled down to fit ``box`` when given."""
    image = QImage()
    if not image.loadFromData(data):
        return None
    if box is not None and (image.width() > box.width() or image.height() > box.height()):
        image = image.scaled(
            box, Qt.AspectRatioMode.KeepAspectRatio, Qt.TransformationMode.SmoothTransformation
        )
    return image


def warm_image_formats() -> None:
    """Write and read back a tiny image in each common format, which loads Qt's image format
    plugins; the first thumbnails then decode without that wait. Call it in a worker."""
    image = QImage(2, 2, QImage.Format.Format_RGB32)
    image.fill(QColor(LIGHT.placeholder))
    for kind in ("PNG", "JPEG", "WEBP"):
        data = QByteArray()
        buffer = QBuffer(data)
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        if image.save(buffer, kind):  # type: ignore[call-overload]  # the stubs say bytes
            decode_image(bytes(data.data()))


class ThumbnailCache(QObject):
    """Decoded thumbnails by store key; see the module docstring."""

    ready = Signal(str)
    """The thumbnail with this key has been decoded (or has failed: :meth:`get` says which)."""

    def __init__(
        self,
        service: AttachmentService,
        *,
        box: QSize = QSize(480, 480),  # noqa: B008 - an immutable default
        capacity: int = 400,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._service = service
        self._box = box
        self._capacity = capacity
        self._images: OrderedDict[str, QImage | None] = OrderedDict()
        self._loading: dict[str, asyncio.Task[None]] = {}
        self._slots = asyncio.Semaphore(2)
        self.decoded = 0
        self._closed = False
        """How many pictures were decoded (each key once while it stays cached)."""

    def get(self, ref: MediaRef | None) -> QImage | None:
        """The decoded picture, or ``None`` while it loads (or when it cannot be decoded)."""
        return self.get_key(media_key(ref))

    def get_key(self, key: str) -> QImage | None:
        """:meth:`get` by store key."""
        if not key:
            return None
        if key in self._images:
            self._images.move_to_end(key)
            return self._images[key]
        if key not in self._loading and not self._closed:
            self._loading[key] = spawn(self._load(key))
        return None

    def peek(self, key: str) -> QImage | None:
        """The decoded picture if it is cached; never starts a load."""
        return self._images.get(key)

    def failed_key(self, key: str) -> bool:
        """Whether the picture ``key`` was loaded and could not be decoded."""
        return key in self._images and self._images[key] is None

    def close(self) -> None:
        """Stop loading (the window closes): no picture arrives after this."""
        self._closed = True
        for task in list(self._loading.values()):
            task.cancel()
        self._loading.clear()

    async def _load(self, key: str) -> None:
        try:
            async with self._slots:
                data = await self._service.media(MediaRef(kind="file_id", file_id=key))
                image = None
                if data is not None:
                    image = await asyncio.to_thread(decode_image, data, self._box)
                    self.decoded += 1
        finally:
            self._loading.pop(key, None)
        self._images[key] = image
        while len(self._images) > self._capacity:
            self._images.popitem(last=False)
        self.ready.emit(key)
