"""A video's thumbnail is decoded by Qt Multimedia (the one FFmpeg Parley carries): real MP4,
WebM and Matroska files made by FFmpeg, decoded from memory by a real ``QMediaPlayer``, and
a video attached through the window gets its thumbnail in the store."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtGui import QColor, QImage

from app.core.state import VideoBlock
from app.ui.attachments.video_frames import VideoFrameSource
from tests.media import corpus
from tests.ui.harness import Models, close_test_window, open_test_window


def _decode(jpeg: bytes | None) -> QImage:
    assert jpeg is not None and jpeg[:3] == b"\xff\xd8\xff", "not a JPEG"
    image = QImage()
    assert image.loadFromData(jpeg)
    return image


def _centre(image: QImage) -> QColor:
    return image.pixelColor(image.width() // 2, image.height() // 2)


@pytest.mark.parametrize(
    ("name", "fmt", "codec"),
    [
        ("clip.mp4", "mp4", "mpeg4"),
        ("clip.webm", "webm", "libvpx"),
        ("clip.mkv", "matroska", "libx264"),
    ],
)
async def test_the_frame_asked_for_becomes_a_jpeg_thumbnail(
    name: str, fmt: str, codec: str
) -> None:
    source = VideoFrameSource()
    # 10 fps going from black to green: the frame at 0.2 s is the third, still dark
    image = _decode(await source(corpus.video(fmt, codec), name, 0.2))
    assert (image.width(), image.height()) == (160, 120)
    colour = _centre(image)
    assert colour.red() < 20
    assert 20 < colour.green() < 50


async def test_the_thumbnail_skips_a_black_opening() -> None:
    # 20 s at 10 fps: black for the first second, then green; a key frame every 5 s
    data = corpus.video("mp4", "libx264", frames=200, lit_from=10, gop=50)
    image = _decode(await VideoFrameSource()(data, "talk.mp4", 2.0))
    assert _centre(image).green() > 150


async def test_a_large_picture_is_scaled_down_to_320_pixels() -> None:
    data = corpus.video("mp4", "mpeg4", size=(640, 360), frames=5)
    image = _decode(await VideoFrameSource()(data, "wide.mp4", 0.0))
    assert (image.width(), image.height()) == (320, 180)


@pytest.mark.parametrize(
    ("name", "make"),
    [
        ("sound.m4a", lambda: corpus.audio("ipod", "aac")),
        ("broken.mp4", lambda: b"\x00\x00\x00\x18ftypmp42" + bytes(range(256)) * 4),
    ],
)
async def test_no_frame_is_none(name: str, make: object) -> None:
    assert callable(make)
    assert await VideoFrameSource()(make(), name, 0.0) is None


async def test_a_video_attached_in_the_window_gets_its_thumbnail(tmp_path: Path) -> None:
    clip = tmp_path / "holiday.webm"
    clip.write_bytes(corpus.video("webm", "libvpx", size=(320, 240)))
    window = await open_test_window(tmp_path / "data", Models({"scripted:a": ["Seen."]}))
    try:
        result = await window.workspace.attachments.ingest(clip)
        block = result.block
        assert isinstance(block, VideoBlock), result.message
        assert (block.width, block.height) == (320, 240)
        assert block.thumbnail is not None and block.thumbnail.mime_type == "image/jpeg"
        image = _decode(await window.workspace.attachments.media(block.thumbnail))
        assert (image.width(), image.height()) == (320, 240)
        assert result.notes == ()
    finally:
        await close_test_window(window)
