"""``MediaPlayer``: plays a sound clip or a video from the chat in a small window.

Play/pause (Space), a position slider (Left/Right seek 5 s), the position and the length;
a video shows its picture above the controls. Esc closes and stops.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QCloseEvent, QImage, QKeyEvent, QPixmap
from PySide6.QtMultimedia import QAudioOutput, QMediaPlayer
from PySide6.QtMultimediaWidgets import QVideoWidget
from PySide6.QtWidgets import (
    QDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSlider,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from app.ui.attachments.describe import duration

__all__ = ["MediaPlayer"]


class MediaPlayer(QDialog):
    """A player window for one stored file (object name ``mediaPlayer``)."""

    def __init__(
        self,
        path: Path,
        name: str,
        *,
        video: bool,
        poster: QImage | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("mediaPlayer")
        self.setWindowTitle(f"{name} — Parley")
        self.setAccessibleName(f"{'Video' if video else 'Sound clip'} {name}")
        self.player = QMediaPlayer(self)
        self.audio = QAudioOutput(self)
        self.player.setAudioOutput(self.audio)
        self.video: QVideoWidget | None = None
        self.poster = QLabel(self)
        self.poster.setObjectName("mediaPlayerPoster")
        self.poster.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.screen_stack = QStackedWidget(self)
        layout = QVBoxLayout(self)
        if video:
            self.video = QVideoWidget(self)
            self.video.setObjectName("mediaPlayerVideo")
            self.player.setVideoOutput(self.video)
            self.screen_stack.setMinimumSize(480, 270)
            self.screen_stack.addWidget(self.poster)
            self.screen_stack.addWidget(self.video)
            if poster is not None and not poster.isNull():
                self.poster.setPixmap(
                    QPixmap.fromImage(poster).scaled(
                        480, 270, Qt.AspectRatioMode.KeepAspectRatio,
                        Qt.TransformationMode.SmoothTransformation,
                    )
                )  # fmt: skip
            layout.addWidget(self.screen_stack, 1)
        else:
            self.screen_stack.hide()
            self.poster.hide()
        self.title = QLabel(name, self)
        self.title.setObjectName("mediaPlayerTitle")
        self.play_button = QPushButton("▶ Play", self)
        self.play_button.setObjectName("playPauseButton")
        self.play_button.setAccessibleName("Play")
        self.play_button.clicked.connect(self.toggle)
        self.slider = QSlider(Qt.Orientation.Horizontal, self)
        self.slider.setObjectName("mediaPosition")
        self.slider.setAccessibleName("Position")
        self.slider.sliderMoved.connect(self.player.setPosition)
        self.time = QLabel("0:00 / 0:00", self)
        self.time.setObjectName("mediaTime")
        row = QHBoxLayout()
        row.addWidget(self.play_button)
        row.addWidget(self.slider, 1)
        row.addWidget(self.time)
        layout.addWidget(self.title)
        layout.addLayout(row)
        self.player.durationChanged.connect(self._on_duration)
        self.player.positionChanged.connect(self._on_position)
        self.player.playbackStateChanged.connect(self._on_state)
        self.player.setSource(QUrl.fromLocalFile(str(path)))
        self.resize(520 if video else 420, 380 if video else 90)

    def toggle(self) -> None:
        """Play, or pause when playing."""
        if self.player.playbackState() == QMediaPlayer.PlaybackState.PlayingState:
            self.player.pause()
        else:
            self.player.play()

    def _on_duration(self, ms: int) -> None:
        self.slider.setRange(0, ms)
        self._on_position(self.player.position())

    def _on_position(self, ms: int) -> None:
        if not self.slider.isSliderDown():
            self.slider.setValue(ms)
        self.time.setText(f"{duration(ms / 1000)} / {duration(self.player.duration() / 1000)}")

    def _on_state(self, state: QMediaPlayer.PlaybackState) -> None:
        playing = state == QMediaPlayer.PlaybackState.PlayingState
        if playing and self.video is not None:
            self.screen_stack.setCurrentWidget(self.video)  # the poster until the first play
        self.play_button.setText("⏸ Pause" if playing else "▶ Play")
        self.play_button.setAccessibleName("Pause" if playing else "Play")

    def keyPressEvent(self, event: QKeyEvent) -> None:
        key = event.key()
        if key == Qt.Key.Key_Space:
            self.toggle()
        elif key in (Qt.Key.Key_Left, Qt.Key.Key_Right):
            step = 5000 if key == Qt.Key.Key_Right else -5000
            self.player.setPosition(max(0, self.player.position() + step))
        else:
            super().keyPressEvent(event)

    def release(self) -> None:
        """Stop and let go of the file, so the media backend holds nothing of this window."""
        self.player.stop()
        self.player.setSource(QUrl())

    def closeEvent(self, event: QCloseEvent) -> None:
        self.release()
        super().closeEvent(event)

    def done(self, result: int) -> None:
        self.release()
        super().done(result)
