"""Downloading a catalogue model from the model picker: a bar under the header with what is
downloading, how far it got, and Cancel. A finished download becomes the thread's model; a
cancelled one keeps its bytes, so choosing it again resumes."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from PySide6.QtWidgets import (
    QBoxLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QWidget,
)

from app.core.errors import ParleyError
from app.services.models._download import Progress
from app.services.models.downloads import DOWNLOAD_PREFIX, human_size
from app.ui.tasks import spawn

if TYPE_CHECKING:
    from app.ui.window import MainWindow

__all__ = ["DOWNLOAD_PREFIX", "DownloadBar", "install_downloads"]


class DownloadBar(QFrame):
    """The download bar (object name ``modelDownload``)."""

    def __init__(self, window: MainWindow, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.window_ = window
        self.workspace = window.workspace
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

    def start(self, spec: str) -> None:
        """Download the catalogue model ``download:NAME`` (one at a time)."""
        if self.task is not None and not self.task.done():
            self.window_.notice.show_message(
                "A model is already downloading; wait for it or cancel it first.",
                level="warning",
                timeout_ms=5000,
            )
            return
        self.task = spawn(self._download(spec))

    def cancel(self) -> None:
        """Stop the download; what arrived is kept for the next try."""
        if self.task is not None and not self.task.done():
            self.task.cancel()

    def _show(self, title: str, progress: Progress) -> None:
        if progress.total:
            self.bar.setValue(int(1000 * progress.done / progress.total))
            text = (
                f"Downloading {title}: {human_size(progress.done)} of {human_size(progress.total)}"
            )
        else:
            self.bar.setRange(0, 0)
            text = f"Downloading {title}: {human_size(progress.done)}"
        self.label.setText(text)
        self.bar.setAccessibleDescription(text)

    async def _download(self, spec: str) -> None:
        downloads = self.workspace.downloads
        window = self.window_
        try:
            entry = downloads.entry(spec)
        except ParleyError as exc:
            window.notice.show_message(str(exc), level="error")
            return
        self.bar.setRange(0, 1000)
        self.bar.setValue(0)
        self.label.setText(f"Downloading {entry.title}…")
        self.show()
        try:
            model = await downloads.download(spec, lambda p: self._show(entry.title, p))
        except asyncio.CancelledError:
            kept = await downloads.partial_bytes(spec)
            window.notice.show_message(
                f"Stopped downloading {entry.title}"
                + (f"; {human_size(kept)} are kept, choose it again to resume." if kept else "."),
                timeout_ms=8000,
            )
            return
        except (OSError, ParleyError) as exc:
            window.notice.show_message(str(exc), level="error")
            return
        finally:
            self.hide()
            await window.refresh_models()
        thread = window.chat_vm.thread_id
        if thread is not None:
            await self.workspace.threads.set_model(thread, model.spec)
            window.header.show_model(model.spec)
        window.notice.show_message(
            f"Downloaded {entry.title}; this thread now talks to it.", timeout_ms=6000
        )


def install_downloads(window: MainWindow) -> DownloadBar:
    """Put the download bar under the window's notice bar."""
    column_widget = window.notice.parentWidget()
    bar = DownloadBar(window, column_widget)
    column = column_widget.layout() if column_widget is not None else None
    if isinstance(column, QBoxLayout):
        column.insertWidget(column.indexOf(window.notice) + 1, bar)
    return bar
