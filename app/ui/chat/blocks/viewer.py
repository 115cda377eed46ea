"""``ImageViewer``: a picture at full size in its own window, with zoom.

``+``/``-`` (or Ctrl+wheel) zoom, ``0`` fits the window, ``1`` shows actual size, Esc closes.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QImage, QKeyEvent, QPixmap, QWheelEvent
from PySide6.QtWidgets import QDialog, QLabel, QScrollArea, QVBoxLayout, QWidget

__all__ = ["ImageViewer"]

_STEPS = (0.1, 0.25, 0.33, 0.5, 0.67, 0.8, 1.0, 1.25, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0)


class ImageViewer(QDialog):
    """A zoomable, keyboard-closable image window (object name ``imageViewer``)."""

    def __init__(self, image: QImage, name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("imageViewer")
        self.setWindowTitle(f"{name} — Parley")
        self.setAccessibleName(f"Image {name}")
        self.setAccessibleDescription(
            f"{image.width()} × {image.height()} pixels. Plus and minus zoom, 0 fits, Esc closes."
        )
        self._pixmap = QPixmap.fromImage(image)
        self.zoom = 1.0
        self.picture = QLabel(self)
        self.picture.setObjectName("imageViewerPicture")
        self.picture.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.picture.setAccessibleName(name)
        self.area = QScrollArea(self)
        self.area.setWidget(self.picture)
        self.area.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.area.setWidgetResizable(False)
        self.status = QLabel(self)
        self.status.setObjectName("imageViewerStatus")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 6)
        layout.addWidget(self.area, 1)
        layout.addWidget(self.status, 0, Qt.AlignmentFlag.AlignHCenter)
        self.resize(min(1100, image.width() + 40), min(800, image.height() + 60))
        self.fit()

    def set_zoom(self, zoom: float) -> None:
        """Show the picture at ``zoom`` times its size."""
        self.zoom = max(_STEPS[0], min(_STEPS[-1], zoom))
        size = self._pixmap.size() * self.zoom
        self.picture.setPixmap(
            self._pixmap.scaled(
                size, Qt.AspectRatioMode.KeepAspectRatio, Qt.TransformationMode.SmoothTransformation
            )
        )
        self.picture.resize(size)
        self.status.setText(
            f"{self._pixmap.width()} × {self._pixmap.height()} px · {round(self.zoom * 100)} %"
        )

    def fit(self) -> None:
        """Zoom so the whole picture fits the window (never above actual size)."""
        area = self.size()
        w, h = max(1, self._pixmap.width()), max(1, self._pixmap.height())
        self.set_zoom(min(1.0, (area.width() - 40) / w, (area.height() - 60) / h))

    def zoom_in(self) -> None:
        """One zoom step closer."""
        self.set_zoom(next((s for s in _STEPS if s > self.zoom + 1e-6), _STEPS[-1]))

    def zoom_out(self) -> None:
        """One zoom step further."""
        self.set_zoom(next((s for s in reversed(_STEPS) if s < self.zoom - 1e-6), _STEPS[0]))

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = event.key()
        if key in (Qt.Key.Key_Plus, Qt.Key.Key_Equal):
            self.zoom_in()
        elif key == Qt.Key.Key_Minus:
            self.zoom_out()
        elif key == Qt.Key.Key_0:
            self.fit()
        elif key == Qt.Key.Key_1:
            self.set_zoom(1.0)
        else:
            super().keyPressEvent(event)

    def wheelEvent(self, event: QWheelEvent) -> None:
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            (self.zoom_in if event.angleDelta().y() > 0 else self.zoom_out)()
            return
        super().wheelEvent(event)
