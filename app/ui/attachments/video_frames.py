"""``VideoFrameSource``: video thumbnails decoded by Qt Multimedia, for the attachment service.

``app.media`` reads a video's headers but decodes nothing (Parley carries one FFmpeg, Qt
Multimedia's); the window hands a :class:`VideoFrameSource` to the attachment service
(``AttachmentService.use_video_frames``), which asks it for each video it attaches. A muted
``QMediaPlayer`` plays the bytes from memory into a ``QVideoSink``, seeks to the time asked
for and keeps the first frame from there on, scaled to at most 320 pixels and saved as JPEG.
One video is decoded at a time. This module loads QtMultimedia: import it with the first
video.
"""

from __future__ import annotations

import asyncio
import logging

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QObject, Qt, QUrl, Slot
from PySide6.QtGui import QImage
from PySide6.QtMultimedia import QMediaPlayer, QVideoFrame, QVideoSink

from app.ui import media_calls

__all__ = ["THUMBNAIL_SIDE", "VideoFrameSource", "jpeg_thumbnail"]

log = logging.getLogger(__name__)

THUMBNAIL_SIDE = 320
"""The longest side of a video's thumbnail, in pixels."""

_TIMEOUT_S = 10.0
"""How long one video may take to give a frame."""

_MAX_FRAMES = 120
"""Frames looked at, at most, for one at or after the time asked for."""


def jpeg_thumbnail(image: QImage) -> bytes | None:
    """``image`` scaled down to fit :data:`THUMBNAIL_SIDE` (never up), as JPEG bytes."""
    if image.isNull():
        return None
    if max(image.width(), image.height()) > THUMBNAIL_SIDE:
        image = image.scaled(
            THUMBNAIL_SIDE,
            THUMBNAIL_SIDE,
            Qt.AspectRatioMode.KeepAspectRatio,
            Qt.TransformationMode.SmoothTransformation,
        )
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    ok = image.convertToFormat(QImage.Format.Format_RGB32).save(buffer, "JPEG", 85)  # type: ignore[call-overload]
    return bytes(data.data()) if ok else None


class _Grab(QObject):
    """One video being decoded: a muted player into a sink, until the frame wanted.

    Its slots are methods of an object on the UI thread, so the sink's signal, emitted on a
    decoding thread, is queued to the loop (a plain Python callable would run on that
    thread and could wait for the interpreter while ``stop()`` waits for the thread)."""

    def __init__(self, data: bytes, name: str, at: float, parent: QObject) -> None:
        super().__init__(parent)
        self.done: asyncio.Future[QImage | None] = asyncio.get_running_loop().create_future()
        self._name = name
        self._at = at
        self._target_us = int(at * 1_000_000)
        self._seen = 0
        self._started = False
        self.player = QMediaPlayer(self)
        self.sink = QVideoSink(self)
        self.player.setVideoSink(self.sink)
        self.buffer = QBuffer(self)
        self.buffer.setData(QByteArray(data))
        self.buffer.open(QIODevice.OpenModeFlag.ReadOnly)
        self.player.mediaStatusChanged.connect(self._status)
        self.player.errorOccurred.connect(self._error)
        self.sink.videoFrameChanged.connect(self._frame)
        self._closed = False
        self.player.setSourceDevice(self.buffer, QUrl(_url_name(name)))

    def _finish(self, image: QImage | None) -> None:
        if not self.done.done():
            self.done.set_result(image)

    @Slot(QMediaPlayer.MediaStatus)
    def _status(self, status: QMediaPlayer.MediaStatus) -> None:
        if self._closed:
            return
        if status == QMediaPlayer.MediaStatus.LoadedMedia and not self._started:
            self._started = True
            if not self.player.hasVideo():
                self._finish(None)
                return
            media_calls.seek_to(self.player, int(self._at * 1000))
            media_calls.play(self.player)
        elif status in (QMediaPlayer.MediaStatus.InvalidMedia, QMediaPlayer.MediaStatus.EndOfMedia):
            self._finish(None)

    @Slot(QVideoFrame)
    def _frame(self, frame: QVideoFrame) -> None:
        if self.done.done() or not frame.isValid():
            return
        self._seen += 1
        start = frame.startTime()
        if start < 0 or start >= self._target_us - 1000 or self._seen >= _MAX_FRAMES:
            self._finish(frame.toImage())

    @Slot(QMediaPlayer.Error, str)
    def _error(self, _error: QMediaPlayer.Error, text: str) -> None:
        log.info("no thumbnail for %s: %s", self._name, text)
        self._finish(None)

    def close(self) -> None:
        """Stop decoding and let go of the player, the sink and the bytes (from the event
        loop: see :mod:`app.ui.media_calls`); nothing they say afterwards is heard."""
        self._closed = True
        self._finish(None)
        media_calls.stop(self.player)
        self.deleteLater()


class VideoFrameSource(QObject):
    """Decodes one frame of a video into a JPEG thumbnail; call it as
    ``await source(data, name, at_seconds)`` (``None`` when no frame can be decoded)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._lock = asyncio.Lock()

    async def __call__(self, data: bytes, name: str, at: float) -> bytes | None:
        async with self._lock:
            grab = _Grab(data, name, at, self)
            try:
                image = await asyncio.wait_for(grab.done, _TIMEOUT_S)
            except TimeoutError:
                log.info("no thumbnail for %s: no frame in %.0f s", name, _TIMEOUT_S)
                image = None
            finally:
                grab.close()
        return None if image is None else jpeg_thumbnail(image)


def _url_name(name: str) -> str:
    """A name the decoder may use as a hint of the format: the file's extension only (the
    name itself is the user's and may hold anything)."""
    dot = name.rfind(".")
    ext = name[dot:].lower() if dot >= 0 else ""
    return "clip" + (ext if ext[1:].isalnum() and len(ext) <= 6 else "")
