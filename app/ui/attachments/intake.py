"""Where attachments come in: a drop anywhere on the chat (with a visible target while
dragging), Ctrl+V in the composer, and the Attach… file dialog."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QBuffer, QEvent, QIODevice, QMimeData, QObject, Qt
from PySide6.QtGui import (
    QDragEnterEvent,
    QDragMoveEvent,
    QDropEvent,
    QGuiApplication,
    QHelpEvent,
    QImage,
    QKeyEvent,
    QKeySequence,
)
from PySide6.QtWidgets import QFileDialog, QLabel, QWidget

from app.ui.attachments.tray import AttachmentTray
from app.ui.file_dialogs import chosen_paths, file_dialog
from app.ui.theme import ACCENT, DROP_GROUND

if TYPE_CHECKING:
    from app.media import Source

__all__ = ["AttachmentIntake", "mime_sources"]


def _png(image: QImage) -> bytes:
    buffer = QBuffer()
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")  # type: ignore[call-overload]  # the stubs want bytes, Qt a str
    return bytes(buffer.data().data())


def mime_sources(mime: QMimeData) -> list[Source]:
    """What dropped or pasted data attaches: its local files, else its image, else nothing."""
    formats: dict[str, bytes] = {}
    if mime.hasUrls():
        local = [u.toString() for u in mime.urls() if u.isLocalFile()]
        if local:
            formats["text/uri-list"] = "\r\n".join(local).encode()
    for fmt in mime.formats():
        if fmt.startswith("image/") or fmt.startswith("application/"):
            formats.setdefault(fmt, bytes(mime.data(fmt).data()))
    if mime.hasImage() and not any(f.startswith("image/") and d for f, d in formats.items()):
        image = mime.imageData()
        if isinstance(image, QImage) and not image.isNull():
            formats["image/png"] = _png(image)
    from app.media import sources_from_clipboard  # the ingest stack loads on first use

    return sources_from_clipboard(formats)


def _attachable(mime: QMimeData | None) -> bool:
    if mime is None:
        return False
    if mime.hasUrls() and any(u.isLocalFile() for u in mime.urls()):
        return True
    return mime.hasImage() or any(f.startswith("image/") for f in mime.formats())


class AttachmentIntake(QObject):
    """Turns drops on ``drop_area``, pastes into ``composer`` and picked files into
    attachments of ``tray``."""

    def __init__(
        self, tray: AttachmentTray, drop_area: QWidget, composer: QWidget, parent: QObject
    ) -> None:
        super().__init__(parent)
        self.tray = tray
        self._area = drop_area
        self._composer = composer
        self.on_tooltip: Callable[[QObject, QHelpEvent], bool] | None = None
        """Answers tooltip requests on the watched widgets (one filter per widget: each
        Python event filter costs a call on every event the widget gets)."""
        self.dialog: QFileDialog | None = None
        """The open file dialog, while it is open."""
        self.overlay = QLabel("Drop files to attach them", drop_area)
        self.overlay.setObjectName("dropOverlay")
        self.overlay.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.overlay.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.overlay.setStyleSheet(
            f"#dropOverlay {{ background: {DROP_GROUND}; color: {ACCENT};"
            f" border: 2px dashed {ACCENT}; border-radius: 14px;"
            " font-size: 18px; font-weight: bold; }"
        )
        self.overlay.setAccessibleName("Drop files to attach them")
        self.overlay.hide()
        self._watched: list[QWidget] = [drop_area, composer]
        drop_area.installEventFilter(self)
        composer.installEventFilter(self)

    def watch(self, *widgets: QWidget) -> None:
        """Accept drops on ``widgets`` too (e.g. the chat view's viewport)."""
        for widget in widgets:
            widget.setAcceptDrops(True)
            widget.installEventFilter(self)
            self._watched.append(widget)

    def close(self) -> None:
        """Stop watching (the window closes): no event reaches this filter while the
        window's widgets are being destroyed."""
        for widget in self._watched:
            widget.removeEventFilter(self)
        self._watched = []

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        kind = event.type()
        if kind == QEvent.Type.ToolTip and self.on_tooltip is not None:
            return isinstance(event, QHelpEvent) and self.on_tooltip(watched, event)
        if watched is self._area and kind == QEvent.Type.Resize:
            self.overlay.setGeometry(self._area.rect().adjusted(12, 12, -12, -12))
        if watched is self._composer and kind == QEvent.Type.KeyPress:
            assert isinstance(event, QKeyEvent)
            if event.matches(QKeySequence.StandardKey.Paste):
                return self.paste()
        if isinstance(event, QDragEnterEvent | QDragMoveEvent) and _attachable(event.mimeData()):
            event.acceptProposedAction()
            self._show_overlay()
            return True
        if kind == QEvent.Type.DragLeave:
            self.overlay.hide()
            return False
        if isinstance(event, QDropEvent) and _attachable(event.mimeData()):
            self.overlay.hide()
            sources = mime_sources(event.mimeData())
            event.acceptProposedAction()
            self.tray.add(sources)
            return True
        return False

    def _show_overlay(self) -> None:
        if not self.overlay.isVisible():
            self.overlay.setGeometry(self._area.rect().adjusted(12, 12, -12, -12))
            self.overlay.raise_()
            self.overlay.show()

    def paste(self) -> bool:
        """Attach the clipboard's files or image; False when it holds only text."""
        mime = QGuiApplication.clipboard().mimeData()
        if not _attachable(mime):
            return False
        sources = mime_sources(mime)
        if not sources:
            return False
        self.tray.add(sources)
        return True

    async def pick(self, parent: QWidget) -> list[str]:
        """Let the user choose files (a non-blocking dialog) and attach them."""
        dialog = file_dialog(parent, "Attach files", "attachDialog")
        dialog.setFileMode(QFileDialog.FileMode.ExistingFiles)
        self.dialog = dialog
        try:
            chosen = await chosen_paths(dialog)
        finally:
            self.dialog = None
        self.tray.add(chosen)
        return chosen
