"""``MediaPlayer``: plays a sound clip or a video inside its chat row.

The player is one widget laid over the block's card in the chat's viewport (a video's picture
where its poster was, a transport bar beside it: play/pause, position, time); only the block
that plays has one. It follows the row as the view scrolls or is resized, and goes away when
the row leaves the view, another clip starts, or Esc is pressed. Space plays or pauses,
Left/Right seek 5 s. This module loads QtMultimedia, so it is imported on the first play.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import (
    QEvent,
    QObject,
    QPersistentModelIndex,
    QRect,
    QRectF,
    Qt,
    QTimer,
    QUrl,
    Signal,
    SignalInstance,
)
from PySide6.QtGui import QImage, QKeyEvent, QPixmap, QTextCursor, QTextDocument, QTextFrame
from PySide6.QtMultimedia import QAudioOutput, QMediaPlayer, QVideoFrame, QVideoSink
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QListView,
    QSlider,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.ui import media_calls
from app.ui.attachments.describe import duration
from app.ui.chat.delegate import MessageDelegate
from app.ui.theme import roles

__all__ = ["MediaPlayer", "PlayerDock", "card_rect"]

SEEK_MS = 5000


def card_rect(view: QListView, index: QPersistentModelIndex, href: str) -> QRect | None:
    """Where the card holding the link ``href`` is drawn in row ``index`` (viewport
    coordinates), or ``None`` when the row has no such link."""
    delegate = view.itemDelegate()
    if not isinstance(delegate, MessageDelegate) or not index.isValid():
        return None
    doc = delegate.document(index)
    block = doc.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            if fragment.charFormat().anchorHref() == href:
                frame = _outer_frame(fragment.position(), doc)
                if frame is None:
                    return None
                box = _card_box(doc, frame)
                row = view.visualRect(index)
                return box.translated(
                    delegate.text_left(index, row), row.y() + delegate.lead(index)
                )
            it += 1
        block = block.next()
    return None


def _card_box(doc: QTextDocument, frame: QTextFrame) -> QRect:
    """A card table's outline in the document: the layout places a table frame at its first
    cell's content, so step out by the border and padding, and end below its last line."""
    layout = doc.documentLayout()
    box = layout.frameBoundingRect(frame)
    table = frame.frameFormat().toTableFormat()
    inset = table.border() + table.cellPadding()
    bottom = box.top()
    block = doc.findBlock(frame.firstPosition())
    while block.isValid() and block.position() <= frame.lastPosition():
        bottom = max(bottom, layout.blockBoundingRect(block).bottom())
        block = block.next()
    return QRectF(
        box.left() - inset, box.top() - inset, box.width(), bottom - box.top() + 2 * inset
    ).toAlignedRect()


def _outer_frame(position: int, doc: QTextDocument) -> QTextFrame | None:
    """The outermost frame (the card's table) holding ``position``; ``None`` at the top."""
    cursor = QTextCursor(doc)
    cursor.setPosition(position)
    frame = cursor.currentFrame()
    outer = None
    while frame is not None and frame.parentFrame() is not None:  # the root has no parent
        outer, frame = frame, frame.parentFrame()
    return outer


class MediaPlayer(QFrame):
    """The player of one stored file (object name ``mediaPlayer``); see the module docstring.

    ``closed`` is emitted once, when it stops for good (Esc, another clip, the row gone)."""

    closed = Signal()

    def __init__(
        self,
        path: Path,
        name: str,
        *,
        video: bool,
        poster: QImage | None = None,
        dark: bool = False,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("mediaPlayer")
        self.setAccessibleName(f"{'Video' if video else 'Sound clip'} {name}")
        self.setAccessibleDescription("Space plays or pauses; Left and Right seek; Esc stops.")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setAutoFillBackground(True)
        bg, line = roles(dark).surface, roles(dark).accent
        self.setStyleSheet(
            f"#mediaPlayer {{ background: {bg}; border: 1px solid {line}; border-radius: 4px; }}"
            f"#mediaPlayer:focus {{ border: 2px solid {line}; }}"
        )
        self.player = QMediaPlayer(self)
        self.audio = QAudioOutput(self)
        self.player.setAudioOutput(self.audio)
        self.picture: QLabel | None = None
        """A video's picture: its poster frame, then each frame as it plays."""
        self.frames = 0
        """How many video frames have been shown."""
        self._poster_image = poster
        row = QHBoxLayout(self)
        row.setSizeConstraint(QHBoxLayout.SizeConstraint.SetNoConstraint)  # the card's size
        row.setContentsMargins(8, 8, 8, 8)
        row.setSpacing(10)
        if video:
            self.picture = QLabel(self)
            self.picture.setObjectName("mediaPlayerPicture")
            self.picture.setAccessibleName(f"Picture of {name}")
            self.picture.setAlignment(Qt.AlignmentFlag.AlignCenter)
            self.picture.setStyleSheet(f"background: {roles(dark).video};")
            self.sink = QVideoSink(self)
            self.sink.videoFrameChanged.connect(self._on_frame)
            self.player.setVideoSink(self.sink)
            row.addWidget(self.picture)
        column = QVBoxLayout()
        column.setSpacing(4)
        self.title = QLabel(name, self)
        self.title.setObjectName("mediaPlayerTitle")
        self.title.setStyleSheet("font-weight: bold;")
        column.addWidget(self.title)
        column.addStretch(1)
        transport = QHBoxLayout()
        self.play_button = QToolButton(self)
        self.play_button.setObjectName("playPauseButton")
        self.play_button.setText("▶")
        self.play_button.setAccessibleName("Play")
        self.play_button.setToolTip("Play (Space)")
        self.play_button.clicked.connect(self.toggle)
        self.slider = QSlider(Qt.Orientation.Horizontal, self)
        self.slider.setObjectName("mediaPosition")
        self.slider.setAccessibleName("Position")
        self.slider.sliderMoved.connect(self._slid)
        self.time = QLabel("0:00 / 0:00", self)
        self.time.setObjectName("mediaTime")
        self.stop_button = QToolButton(self)
        self.stop_button.setObjectName("stopPlayerButton")
        self.stop_button.setText("■")
        self.stop_button.setAccessibleName("Stop")
        self.stop_button.setToolTip("Stop (Esc)")
        self.stop_button.clicked.connect(self.stop)
        transport.addWidget(self.play_button)
        transport.addWidget(self.slider, 1)
        transport.addWidget(self.time)
        transport.addWidget(self.stop_button)
        column.addLayout(transport)
        row.addLayout(column, 1)
        for child in (self.play_button, self.slider, self.stop_button):
            child.installEventFilter(self)  # Space, arrows and Esc work from any control
        self.player.durationChanged.connect(self._on_duration)
        self.player.positionChanged.connect(self._on_position)
        self.player.playbackStateChanged.connect(self._on_state)
        media_calls.set_source(self.player, QUrl.fromLocalFile(str(path)))
        self._closed = False

    def fit(self, rect: QRect) -> None:
        """Cover ``rect`` (the card's place in the viewport); the picture takes its height."""
        self.setGeometry(rect)
        if self.picture is not None:
            side = max(40, rect.height() - 16)
            if self.picture.height() != side:
                self.picture.setFixedSize(side * 4 // 3, side)
                if self.frames == 0 and self._poster_image is not None:
                    self._show_image(self._poster_image)

    def _show_image(self, image: QImage) -> None:
        if self.picture is None or image.isNull():
            return
        self.picture.setPixmap(
            QPixmap.fromImage(image).scaled(
                self.picture.size(), Qt.AspectRatioMode.KeepAspectRatio,
                Qt.TransformationMode.SmoothTransformation,
            )
        )  # fmt: skip

    def _on_frame(self, frame: QVideoFrame) -> None:
        image = frame.toImage()
        if not image.isNull():
            self.frames += 1
            self._show_image(image)

    def play(self) -> None:
        """Start playing (once the source is open)."""
        media_calls.play(self.player)

    def toggle(self) -> None:
        """Play, or pause when playing."""
        if self.player.playbackState() == QMediaPlayer.PlaybackState.PlayingState:
            media_calls.pause(self.player)
        else:
            media_calls.play(self.player)

    def _slid(self, ms: int) -> None:
        media_calls.seek_to(self.player, ms)

    def seek(self, delta_ms: int) -> None:
        """Move the position by ``delta_ms`` (within the clip)."""
        end = self.player.duration() or 0
        target = max(0, self.player.position() + delta_ms)
        media_calls.seek_to(self.player, min(target, end) if end else target)

    def _on_duration(self, ms: int) -> None:
        self.slider.setRange(0, ms)
        self.slider.setSingleStep(SEEK_MS)
        self._on_position(self.player.position())

    def _on_position(self, ms: int) -> None:
        if not self.slider.isSliderDown():
            self.slider.setValue(ms)
        self.time.setText(f"{duration(ms / 1000)} / {duration(self.player.duration() / 1000)}")

    def _on_state(self, state: QMediaPlayer.PlaybackState) -> None:
        playing = state == QMediaPlayer.PlaybackState.PlayingState
        self.play_button.setText("⏸" if playing else "▶")
        self.play_button.setAccessibleName("Pause" if playing else "Play")
        self.play_button.setToolTip("Pause (Space)" if playing else "Play (Space)")

    def _key(self, event: QKeyEvent) -> bool:
        key = event.key()
        if key == Qt.Key.Key_Space:
            self.toggle()
        elif key in (Qt.Key.Key_Left, Qt.Key.Key_Right):
            self.seek(SEEK_MS if key == Qt.Key.Key_Right else -SEEK_MS)
        elif key == Qt.Key.Key_Escape:
            self.stop()
        else:
            return False
        return True

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if not self._key(event):
            super().keyPressEvent(event)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent):
            return self._key(event)
        return False

    def stop(self) -> None:
        """Stop for good: let go of the file and go away."""
        if self._closed:
            return
        self._closed = True
        media_calls.stop(self.player)  # the widget goes later, after the player stopped
        for child in (self.play_button, self.slider, self.stop_button):
            child.removeEventFilter(self)
        self.hide()
        self.closed.emit()
        self.deleteLater()


class PlayerDock(QObject):
    """Keeps at most one :class:`MediaPlayer` over its block in ``view``'s viewport."""

    def __init__(self, view: QListView, on_closed: Callable[[], None] | None = None) -> None:
        super().__init__(view)
        self._view = view
        self._on_closed = on_closed
        self.player: MediaPlayer | None = None
        """The playing (or paused) player, if any."""
        self._index = QPersistentModelIndex()
        self._href = ""
        self._hooks: list[tuple[SignalInstance, Callable[..., object]]] = []

    def start(self, player: MediaPlayer, row: int, href: str) -> bool:
        """Lay ``player`` over the card of link ``href`` in ``row`` (stopping any other);
        ``False`` (and ``player`` stopped) when that card is not in sight."""
        self.stop()
        view = self._view
        self._index = QPersistentModelIndex(view.model().index(row, 0))
        self._href = href
        player.setParent(view.viewport())
        self.player = player
        player.closed.connect(self._closed)
        if not self.place():
            return False
        model = view.model()
        self._hooks = [
            (view.verticalScrollBar().valueChanged, self.place),
            (model.modelReset, self.stop),
            (model.layoutChanged, self.place),
            (model.rowsInserted, self.place),
            (model.rowsRemoved, self.place),
        ]
        for signal, slot in self._hooks:
            signal.connect(slot)
        view.viewport().installEventFilter(self)  # only while playing: resizes move it
        player.show()
        player.raise_()
        player.setFocus(Qt.FocusReason.OtherFocusReason)
        return True

    def place(self) -> bool:
        """Move the player onto its card again; stop it when the card is out of sight."""
        player = self.player
        if player is None:
            return False
        rect = card_rect(self._view, self._index, self._href)
        viewport = self._view.viewport().rect()
        if rect is None or not rect.intersects(viewport):
            self.stop()
            return False
        player.fit(rect.adjusted(0, 0, 1, 1))
        return True

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Resize and self.player is not None:
            # the rows are laid out again after the resize: place the player then
            QTimer.singleShot(0, self.place)
        return False

    def stop(self) -> None:
        """Stop and remove the player, if one plays."""
        if self.player is not None:
            self.player.stop()

    def _closed(self) -> None:
        view = self._view
        had_focus = self.player is not None and self.player.isAncestorOf(
            view.window().focusWidget()
        )
        self.player = None
        view.viewport().removeEventFilter(self)
        for signal, slot in self._hooks:
            signal.disconnect(slot)
        self._hooks = []
        if had_focus:
            view.setFocus(Qt.FocusReason.OtherFocusReason)
        if self._on_closed is not None:
            self._on_closed()
