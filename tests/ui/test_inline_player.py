"""Sound clips and videos play inside their chat row: one player over the block's card that
follows the row as the view scrolls, works from the keyboard, and goes away with Esc, when
the row leaves the view, or when another clip starts. Real WAV and MP4 files, real
QtMultimedia (offscreen there may be no sound device: the clip still loads, plays and seeks)."""

from __future__ import annotations

from PySide6.QtCore import QPersistentModelIndex, Qt
from PySide6.QtMultimedia import QMediaPlayer
from PySide6.QtWidgets import QLabel, QSlider, QToolButton

from app.ui.chat.player import MediaPlayer, card_rect
from app.ui.window import MainWindow
from tests.ui.harness import close_test_window, find, press, wait_until
from tests.ui.test_block_renderers import _thread_with_every_kind


def _players(window: MainWindow) -> list[MediaPlayer]:
    return [p for p in window.chat.viewport().findChildren(MediaPlayer) if p.isVisible()]


def _show_card(window: MainWindow, href: str) -> None:
    """Scroll so the card of ``href`` in row 0 is in the middle of the view."""
    chat = window.chat
    index = QPersistentModelIndex(chat.model().index(0, 0))
    rect = card_rect(chat, index, href)
    assert rect is not None
    bar = chat.verticalScrollBar()
    bar.setValue(bar.value() + rect.center().y() - chat.viewport().height() // 2)


async def _play(window: MainWindow, href: str, instead: MediaPlayer | None = None) -> MediaPlayer:
    _show_card(window, href)
    window.chat.delegate.linkActivated.emit(href, 0)
    dock = await wait_until(lambda: window.attachments.actions.dock, what="the player")
    return await wait_until(
        lambda: dock.player if dock.player is not instead else None, what="the player"
    )


async def test_a_sound_clip_plays_over_its_card_and_follows_the_row(tmp_path: object) -> None:
    window, _files = await _thread_with_every_kind(tmp_path)  # type: ignore[arg-type]
    try:
        window.resize(900, 700)
        player = await _play(window, "media:play:3")
        chat = window.chat
        index = QPersistentModelIndex(chat.model().index(0, 0))
        card = card_rect(chat, index, "media:play:3")
        assert card is not None and player.parent() is chat.viewport()
        assert player.geometry().topLeft() == card.topLeft()
        assert chat.visualRect(chat.model().index(0, 0)).contains(player.geometry())
        assert player.picture is None and _players(window) == [player]
        assert find(player, QLabel, "mediaPlayerTitle").text() == "memo.wav"
        time = find(player, QLabel, "mediaTime")
        await wait_until(lambda: time.text() == "0:00 / 0:02", what="the length")
        assert find(player, QSlider, "mediaPosition").maximum() == 2000
        assert player.player.duration() == 2000
        assert player.hasFocus()
        button = find(player, QToolButton, "playPauseButton")
        await wait_until(
            lambda: (
                player.player.playbackState() == QMediaPlayer.PlaybackState.PlayingState
                or player.player.mediaStatus() == QMediaPlayer.MediaStatus.EndOfMedia
            ),
            what="it to play",
        )
        # the keyboard: Space pauses, arrows seek
        press(player, Qt.Key.Key_Space)
        await wait_until(lambda: button.accessibleName() == "Play", what="the pause")
        assert player.player.playbackState() != QMediaPlayer.PlaybackState.PlayingState
        player.seek(-player.player.position())
        await wait_until(lambda: player.player.position() == 0, what="the start")
        press(player, Qt.Key.Key_Right)
        await wait_until(lambda: player.player.position() >= 1900, what="the seek")
        press(player, Qt.Key.Key_Left)
        await wait_until(lambda: player.player.position() == 0, what="the seek back")
        # scrolling moves it with its row
        bar, before = chat.verticalScrollBar(), player.y()
        step = 30 if bar.value() + 30 <= bar.maximum() else -30
        bar.setValue(bar.value() + step)
        assert player.y() == before - step and _players(window) == [player]
        # Esc stops it and hands the keyboard back to the chat
        press(player, Qt.Key.Key_Escape)
        await wait_until(lambda: _players(window) == [], what="the player to go")
        assert window.attachments.actions.dock.player is None  # type: ignore[union-attr]
    finally:
        await close_test_window(window)


async def test_a_video_plays_inline_and_only_one_clip_plays_at_a_time(tmp_path: object) -> None:
    window, _files = await _thread_with_every_kind(tmp_path)  # type: ignore[arg-type]
    try:
        window.resize(900, 700)
        video = await _play(window, "media:play:4")
        picture = video.picture
        assert picture is not None and picture.accessibleName() == "Picture of clip.mp4"
        assert not picture.pixmap().isNull()  # the poster frame, before the first frame
        time = find(video, QLabel, "mediaTime")
        await wait_until(lambda: time.text() == "0:00 / 0:02", what="the length")
        # the clip's own frames are drawn where the poster was, as tall as the card allows
        await wait_until(lambda: video.frames > 0, what="a decoded frame")
        assert picture.height() == video.height() - 16
        assert video.geometry().contains(picture.geometry().translated(video.pos()))
        # another clip starts: the video's player goes
        sound = await _play(window, "media:play:3", instead=video)
        assert sound is not video and _players(window) == [sound]
        # its row scrolls out of sight: the player goes too
        chat = window.chat
        index = QPersistentModelIndex(chat.model().index(0, 0))
        window.resize(900, 460)  # the player follows the resize
        await wait_until(
            lambda: sound.geometry().topLeft() == card_rect(chat, index, "media:play:3").topLeft(),
            what="the move",
        )  # type: ignore[union-attr]
        chat.verticalScrollBar().setValue(0)
        assert not card_rect(chat, index, "media:play:3").intersects(chat.viewport().rect())  # type: ignore[union-attr]
        await wait_until(lambda: _players(window) == [], what="the player to go")
    finally:
        await close_test_window(window)
