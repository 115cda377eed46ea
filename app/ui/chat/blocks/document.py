"""``MediaDocument``: a message's laid-out rich text that draws stored pictures lazily.

An ``<img src="thumb:SHA256">`` with its size in the tag costs nothing to lay out: the
document starts with a quiet placeholder for each picture, and asks the
:class:`~app.ui.attachments.thumbs.ThumbnailCache` for the real ones only when the row is
painted (:meth:`MediaDocument.ensure`). Decoding happens off the UI thread; :meth:`fill`
swaps a picture in when it arrives, without laying the message out again.
"""

from __future__ import annotations

import re

from PySide6.QtCore import QUrl
from PySide6.QtGui import QColor, QImage, QTextDocument

from app.ui.attachments.thumbs import ThumbnailCache

__all__ = ["MediaDocument"]

_THUMB = re.compile(r'src="thumb:([0-9A-Za-z]+)"')
_IMAGE = QTextDocument.ResourceType.ImageResource.value
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

    def set_media_html(self, html: str) -> None:
        """Set the HTML; each picture shows at once if decoded before, else a placeholder."""
        for key in set(_THUMB.findall(html)):
            image = self._thumbs.peek(key)
            if image is None:
                self.waiting.add(key)
            self.addResource(_IMAGE, QUrl(f"thumb:{key}"), image or _placeholder(self._dark))
        self.setHtml(html)

    def ensure(self) -> None:
        """The row is about to be painted: ask for the pictures it still lacks."""
        for key in list(self.waiting):
            if self._thumbs.get_key(key) is not None or self._thumbs.failed_key(key):
                self.fill(key)

    def fill(self, key: str) -> bool:
        """Draw the now decoded picture ``key``; whether this document shows it."""
        if key not in self.waiting:
            return False
        self.waiting.discard(key)
        image = self._thumbs.peek(key)
        if image is not None:
            self.addResource(_IMAGE, QUrl(f"thumb:{key}"), image)
        return True
