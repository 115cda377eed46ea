"""Calling a ``QMediaPlayer`` from the event loop rather than from Python.

Qt Multimedia's FFmpeg backend lets go of a player's objects on its own threads; there Qt,
holding one of its signal locks, asks the Python wrapper of the player (or of its audio
output or video sink) whether Python overrides ``disconnectNotify``, which takes Python's
lock. A call made from Python holds Python's lock, and ``stop()``, ``setSource()`` and the
others connect and disconnect, which takes Qt's: each thread then waits for the other for
ever (seen as a window frozen in ``stop()``). Queued to the event loop, the player's slot
runs with Python's lock free, and the backend's thread gets it.
"""

from __future__ import annotations

from PySide6.QtCore import Q_ARG, QMetaObject, Qt, QUrl
from PySide6.QtMultimedia import QMediaPlayer

__all__ = ["pause", "play", "seek_to", "set_source", "stop"]


def _later(player: QMediaPlayer, slot: str, *args: object) -> None:
    queued = QMetaObject.invokeMethod(player, slot, Qt.ConnectionType.QueuedConnection, *args)  # type: ignore[call-overload]
    if not queued:
        raise RuntimeError(f"QMediaPlayer has no slot {slot}")


def play(player: QMediaPlayer) -> None:
    """Start or go on playing, from the event loop."""
    _later(player, "play")


def pause(player: QMediaPlayer) -> None:
    """Pause, from the event loop."""
    _later(player, "pause")


def stop(player: QMediaPlayer) -> None:
    """Stop and let go of the source, from the event loop."""
    _later(player, "stop")
    _later(player, "setSource", Q_ARG(QUrl, QUrl()))


def set_source(player: QMediaPlayer, url: QUrl) -> None:
    """Open ``url``, from the event loop."""
    _later(player, "setSource", Q_ARG(QUrl, url))


def seek_to(player: QMediaPlayer, ms: int) -> None:
    """Move to ``ms`` milliseconds, from the event loop."""
    _later(player, "setPosition", Q_ARG("qint64", ms))
