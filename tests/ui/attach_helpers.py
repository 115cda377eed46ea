"""Real files to attach, and drops sent the way Qt delivers them, for the attachment tests."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDragMoveEvent, QDropEvent
from PySide6.QtWidgets import QApplication, QWidget

from tests.media import corpus


def make_files(folder: Path) -> dict[str, Path]:
    """A PNG, a two-page PDF, a WAV, a corrupt JPEG, an empty file and a folder."""
    folder.mkdir(parents=True, exist_ok=True)
    files = {
        "png": folder / "screenshot.png",
        "pdf": folder / "report.pdf",
        "wav": folder / "memo.wav",
        "bad": folder / "broken.jpg",
        "empty": folder / "empty.txt",
        "dir": folder / "photos",
    }
    files["png"].write_bytes(corpus.image("PNG", (320, 200)))
    files["pdf"].write_bytes(
        corpus.pdf(["Quarterly revenue rose 12 percent in Oslo.", "Costs were flat."])
    )
    files["wav"].write_bytes(corpus.wav(2.0))
    jpeg = corpus.image("JPEG")
    files["bad"].write_bytes(jpeg[: len(jpeg) // 2])
    files["empty"].write_bytes(b"")
    files["dir"].mkdir(exist_ok=True)
    return files


def drag_mime(paths: list[Path]) -> QMimeData:
    """What a file manager puts on a drag of ``paths``."""
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    return mime


def drag_over(widget: QWidget, mime: QMimeData) -> bool:
    """Drag ``mime`` onto ``widget`` (enter and move); whether it was accepted."""
    point = QPointF(widget.rect().center())
    buttons, mods = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    enter = QDragEnterEvent(point, Qt.DropAction.CopyAction, mime, buttons, mods)
    QApplication.sendEvent(widget, enter)
    move = QDragMoveEvent(point, Qt.DropAction.CopyAction, mime, buttons, mods)
    QApplication.sendEvent(widget, move)
    return enter.isAccepted() and move.isAccepted()


def drop_on(widget: QWidget, paths: list[Path]) -> bool:
    """Drag ``paths`` onto ``widget`` and drop them there; whether the drop was taken."""
    mime = drag_mime(paths)
    drag_over(widget, mime)
    point = QPointF(widget.rect().center())
    event = QDropEvent(
        point,
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    QApplication.sendEvent(widget, event)
    return event.isAccepted()
