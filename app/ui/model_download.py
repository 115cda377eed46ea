"""Downloading a catalogue model from the model picker: a bar under the header with what is
downloading, how far it got, and Cancel. A finished download becomes the thread's model; a
cancelled one keeps its bytes, so choosing it again resumes."""

from __future__ import annotations

import asyncio

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QProgressBar, QPushButton, QWidget

from app.core.errors import ParleyError
from app.services.models.downloads import ModelDownloads, Progress
from app.text.sizes import rough_size
from app.ui.notifier import Notifier
from app.ui.tasks import spawn

__all__ = ["DownloadBar"]


class DownloadBar(QFrame):
    """The download bar (object name ``modelDownload``)."""

    downloaded = Signal(str, str)
    """A model finished downloading: its spec and its title."""
    stopped = Signal()
    """A download ended without a model (cancelled or failed; the notifier said why)."""

    def __init__(
        self, downloads: ModelDownloads, notifier: Notifier, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.downloads = downloads
        self.notifier = notifier
        self.setObjectName("modelDownload")
        self.label = QLabel("", self)
        self.label.setObjectName("downloadText")
        self.bar = QProgressBar(self)
        self.bar.setObjectName("downloadProgress")
        self.bar.setAccessibleName("Download progress")
        self.bar.setRange(0, 1000)
        self.bar.setTextVisible(False)
        self.bar.setFixedWidth(220)
        self.cancel_button = QPushButton("Cancel", self)
        self.cancel_button.setObjectName("cancelDownloadButton")
        self.cancel_button.setAccessibleName("Cancel the download")
        self.cancel_button.clicked.connect(self.cancel)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(16, 6, 16, 6)
        layout.setSpacing(12)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.bar)
        layout.addWidget(self.cancel_button)
        self.task: asyncio.Task[None] | None = None
        self.hide()

    def start(self, name: str) -> None:
        """Download the catalogue model ``name`` (one at a time)."""
        if self.task is not None and not self.task.done():
            self.notifier.show(
                "A model is already downloading; wait for it or cancel it first.",
                level="warning",
                timeout_ms=5000,
            )
            return
        self.task = spawn(self._download(name))

    def cancel(self) -> None:
        """Stop the download; what arrived is kept for the next try."""
        if self.task is not None and not self.task.done():
            self.task.cancel()

    def _show(self, title: str, progress: Progress) -> None:
        if progress.total:
            self.bar.setValue(int(1000 * progress.done / progress.total))
            text = (
                f"Downloading {title}: {rough_size(progress.done)} of {rough_size(progress.total)}"
            )
        else:
            self.bar.setRange(0, 0)
            text = f"Downloading {title}: {rough_size(progress.done)}"
        self.label.setText(text)
        self.bar.setAccessibleDescription(text)

    async def _download(self, name: str) -> None:
        downloads = self.downloads
        try:
            entry = downloads.entry(name)
        except ParleyError as exc:
            self.notifier.show(str(exc), level="error")
            return
        self.bar.setRange(0, 1000)
        self.bar.setValue(0)
        self.label.setText(f"Downloading {entry.title}…")
        self.show()
        try:
            model = await downloads.download(name, lambda p: self._show(entry.title, p))
        except asyncio.CancelledError:
            kept = await downloads.partial_bytes(name)
            self._stop()
            self.notifier.show(
                f"Stopped downloading {entry.title}"
                + (f"; {rough_size(kept)} are kept, choose it again to resume." if kept else "."),
                timeout_ms=8000,
            )
            return
        except (OSError, ParleyError) as exc:
            self._stop()
            self.notifier.show(str(exc), level="error")
            return
        self.hide()
        self.downloaded.emit(model.spec, entry.title)

    def _stop(self) -> None:
        self.hide()
        self.stopped.emit()
