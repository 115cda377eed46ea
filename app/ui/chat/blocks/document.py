"""``MediaDocument``: a message's laid-out rich text that draws stored pictures lazily.

An ``<img src="thumb:SHA256">`` with its size in the tag costs nothing to lay out: the
document starts with a quiet placeholder for each picture, and asks the
:class:`~app.ui.attachments.thumbs.ThumbnailCache` for the real ones only when the row is
painted (:meth:`MediaDocument.ensure`). Decoding happens off the UI thread; :meth:`fill`
swaps a picture in when it arrives, without laying the message out again. A ``?box=l,t,r,b``
(fractions) on the source outlines that region of the picture.
"""

from __future__ import annotations

import re

from PySide6.QtCore import QRectF, QUrl
from PySide6.QtGui import QColor, QImage, QPainter, QPen, QTextDocument

from app.ui.attachments.thumbs import ThumbnailCache
from app.ui.theme import LIGHT, roles

__all__ = ["MediaDocument", "outlined"]

_THUMB = re.compile(r'src="(thumb:([0-9A-Za-z]+)(?:\?box=([0-9.,]+))?)"')
_IMAGE = QTextDocument.ResourceType.ImageResource.value
_PLACEHOLDERS: dict[bool, QImage] = {}
OUTLINE = QColor(LIGHT.highlight_mark)


def _placeholder(dark: bool) -> QImage:
    if dark not in _PLACEHOLDERS:
        image = QImage(1, 1, QImage.Format.Format_ARGB32)
        image.fill(QColor(roles(dark).placeholder))
        _PLACEHOLDERS[dark] = image
    return _PLACEHOLDERS[dark]


def outlined(image: QImage, box: str) -> QImage:
    """``image`` with the region ``box`` (``"l,t,r,b"`` fractions) outlined; as is without."""
    try:
        left, top, right, bottom = (float(v) for v in box.split(","))
    except ValueError:
        return image
    copy = image.convertToFormat(QImage.Format.Format_ARGB32)
    painter = QPainter(copy)
    pen = QPen(OUTLINE)
    width = max(2.0, image.width() / 160)
    pen.setWidthF(width)
    painter.setPen(pen)
    w, h, half = image.width(), image.height(), width / 2
    area = QRectF(left * w, top * h, (right - left) * w, (bottom - top) * h)
    painter.drawRect(area.adjusted(half, half, -half, -half))  # the whole line inside
    painter.end()
    return copy


class MediaDocument(QTextDocument):
    """A ``QTextDocument`` whose ``thumb:`` images come from a :class:`ThumbnailCache`."""

    def __init__(self, thumbs: ThumbnailCache, dark: bool) -> None:
        super().__init__()
        self._thumbs = thumbs
        self._dark = dark
        self.waiting: dict[str, set[tuple[str, str]]] = {}
        """Pictures drawn as placeholders until decoded: store key → (source, box) pairs."""

    def set_media_html(self, html: str) -> None:
        """Set the HTML; each picture shows at once if decoded before, else a placeholder."""
        for url, key, box in set(_THUMB.findall(html)):
            image = self._thumbs.peek(key)
            if image is None:
                self.waiting.setdefault(key, set()).add((url, box))
                self.addResource(_IMAGE, QUrl(url), _placeholder(self._dark))
            else:
                self.addResource(_IMAGE, QUrl(url), outlined(image, box) if box else image)
        self.setHtml(html)

    def ensure(self) -> None:
        """The row is about to be painted: ask for the pictures it still lacks."""
        for key in list(self.waiting):
            if self._thumbs.get_key(key) is not None or self._thumbs.failed_key(key):
                self.fill(key)

    def fill(self, key: str) -> bool:
        """Draw the now decoded picture ``key``; whether this document shows it."""
        sources = self.waiting.pop(key, None)
        if sources is None:
            return False
        image = self._thumbs.peek(key)
        if image is not None:
            for url, box in sources:
                self.addResource(_IMAGE, QUrl(url), outlined(image, box) if box else image)
        return True
