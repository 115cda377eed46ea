"""``MediaDocument``: a message's laid-out rich text that draws stored pictures lazily.

An ``<img src="thumb:SHA256">`` with its size in the tag costs nothing to lay out; the
picture is asked for only when the row is painted. Until it has been decoded (off the UI
thread, by :class:`~app.ui.attachments.thumbs.ThumbnailCache`) a quiet placeholder is drawn,
and :meth:`MediaDocument.fill` swaps the picture in without laying the message out again.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QUrl
from PySide6.QtGui import QColor, QImage, QTextDocument

from app.ui.attachments.thumbs import ThumbnailCache

__all__ = ["MediaDocument"]

_PLACEHOLDERS: dict[bool, QImage] = {}


def _placeholder(dark: bool) -> QImage:
    if dark not in _PLACEHOLDERS:
        image = QImage(1, 1, QImage.Format.Format_ARGB32)
        image.fill(QColor("#3a414b") if dark else QColor("#dde2e8"))
        _PLACEHOLDERS[dark] = image
    return _PLACEHOLDERS[dark]


class MediaDocument(QTextDocument):
    """A ``QTextDocument`` whose ``thumb:`` images come from a :class:`ThumbnailCache`."""

    def __init__(self, thumbs: ThumbnailCache, dark: bool) -> None:
        super().__init__()
        self._thumbs = thumbs
        self._dark = dark
        self.waiting: set[str] = set()
        """Keys of pictures drawn as placeholders until they are decoded."""

    def loadResource(self, kind: int, name: QUrl | str) -> Any:
        name = QUrl(name)
        if kind == QTextDocument.ResourceType.ImageResource.value and name.scheme() == "thumb":
            key = name.path()
            image = self._thumbs.get_key(key)
            if image is None:
                if not self._thumbs.failed_key(key):
                    self.waiting.add(key)
                return _placeholder(self._dark)
            return image
        return super().loadResource(kind, name)

    def fill(self, key: str) -> bool:
        """Draw the now decoded picture ``key``; whether this document shows it."""
        if key not in self.waiting:
            return False
        self.waiting.discard(key)
        image = self._thumbs.get_key(key)
        if image is not None:
            self.addResource(
                QTextDocument.ResourceType.ImageResource.value, QUrl(f"thumb:{key}"), image
            )
        return True
