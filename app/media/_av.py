"""Audio (mutagen) and video (PyAV): duration, sample rate, channels, size, a thumbnail frame.

PyAV tells audio from video by the streams a container holds (an MP4 with only sound is
audio, cover art is not video); mutagen reads audio metadata without decoding anything.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any

import av
import mutagen
from av.stream import Disposition
from PIL import Image

from app.core.state.message_block import AudioBlock, MediaRef, VideoBlock
from app.media._draft import MAIN, Blob, Draft
from app.media._util import Job
from app.media.errors import IngestError

_MAX_FRAMES = 120
"""Frames decoded at most while looking for a thumbnail."""


@dataclass(frozen=True)
class _Probe:
    video: bool
    width: int | None
    height: int | None
    duration_s: float | None
    sample_rate: int | None
    channels: int | None
    thumbnail: Blob | None


def _mime(head: bytes, video: bool) -> str:
    kind = "video" if video else "audio"
    if head[:4] == b"RIFF":
        return "audio/wav"
    if head[:4] == b"OggS":
        return f"{kind}/ogg"
    if head[:4] == b"fLaC":
        return "audio/flac"
    if head[:4] == b"\x1a\x45\xdf\xa3":
        return f"{kind}/webm" if b"webm" in head[:64] else f"{kind}/x-matroska"
    if head[4:8] == b"ftyp":
        return "video/quicktime" if video and head[8:12] == b"qt  " else f"{kind}/mp4"
    return "audio/mpeg"


def _seek(container: Any, stream: Any, duration: float | None) -> float:
    """Go to a tenth of the way in (at most 3 s: past a fade-in, still the opening scene);
    return the time aimed at, or 0 when the container cannot seek."""
    if not duration or duration <= 1 or not stream.time_base:
        return 0.0
    target = min(3.0, duration / 10)
    try:
        container.seek(int(target / stream.time_base), stream=stream)
    except (av.FFmpegError, OSError, ValueError):
        container.seek(0)
        return 0.0
    return target


def _thumbnail(container: Any, stream: Any, duration: float | None, job: Job) -> Blob | None:
    """A frame from near the start, as a JPEG at most 320 pixels wide or high."""
    chosen = None
    try:
        target = _seek(container, stream, duration)
        for count, frame in enumerate(container.decode(stream)):
            job.check()
            chosen = frame
            # decoding starts at the key frame before the target
            if frame.time is None or frame.time >= target or count >= _MAX_FRAMES:
                break
    except (av.FFmpegError, OSError, ValueError):
        pass
    if chosen is None:
        return None
    image: Image.Image = chosen.to_image()
    image.thumbnail((320, 320))
    out = io.BytesIO()
    image.convert("RGB").save(out, "JPEG", quality=85)
    return Blob(out.getvalue(), "image/jpeg")


def _probe(data: bytes, name: str, job: Job) -> _Probe:
    try:
        container = av.open(io.BytesIO(data), "r")
    except (av.FFmpegError, OSError, ValueError, UnicodeDecodeError):
        raise IngestError(name, "it is not a readable audio or video file") from None
    with container:
        videos = [
            s for s in container.streams.video if not s.disposition & Disposition.attached_pic
        ]
        audios = list(container.streams.audio)
        if not videos and not audios:
            raise IngestError(name, "it is a media container with no sound or picture in it")
        duration = container.duration / 1_000_000 if container.duration else None
        if videos:
            stream = videos[0]
            ctx = stream.codec_context
            job.progress(0.6, "making a thumbnail")
            thumb = _thumbnail(container, stream, duration, job)
            return _Probe(True, ctx.width or None, ctx.height or None, duration, None, None, thumb)
        actx = audios[0].codec_context
        return _Probe(False, None, None, duration, actx.sample_rate or None, actx.channels, None)


def _wav_data(data: bytes) -> tuple[int, int] | None:
    """How many bytes of sound a WAV file's header declares, and how many are really there."""
    pos = 12
    while pos + 8 <= len(data):
        chunk, size = data[pos : pos + 4], int.from_bytes(data[pos + 4 : pos + 8], "little")
        if chunk == b"data":
            return size, max(0, min(size, len(data) - pos - 8))
        pos += 8 + size + (size & 1)
    return None


def extract_av(data: bytes, name: str, job: Job) -> Draft:
    """Read an audio or video file into an :class:`AudioBlock` or a :class:`VideoBlock`."""
    job.progress(0.4, "reading the media")
    probe = _probe(data, name, job)
    mime = _mime(data[:64], probe.video)
    blobs = {MAIN: Blob(data, mime, name)}
    if probe.video:
        if probe.thumbnail is not None:
            blobs["thumbnail"] = probe.thumbnail

        def build_video(refs: dict[str, MediaRef]) -> VideoBlock:
            return VideoBlock(
                media=refs[MAIN],
                thumbnail=refs.get("thumbnail"),
                duration_s=probe.duration_s,
                width=probe.width,
                height=probe.height,
            )

        notes = [] if probe.thumbnail else [f"{name}: no frame could be decoded for a thumbnail"]
        return Draft(blobs, build_video, notes)
    try:
        info = mutagen.File(io.BytesIO(data))
    except (mutagen.MutagenError, OSError, ValueError, EOFError):
        info = None
    meta = getattr(info, "info", None)
    duration = getattr(meta, "length", None) or probe.duration_s
    rate = getattr(meta, "sample_rate", None) or probe.sample_rate
    channels = getattr(meta, "channels", None) or probe.channels
    notes = []
    wav = _wav_data(data) if mime == "audio/wav" else None
    if wav is not None and wav[1] < wav[0]:
        declared, present = wav
        if present == 0:
            raise IngestError(name, "it is a WAV file with no sound data in it (cut off?)")
        if duration:
            claimed = float(duration)
            duration = claimed * present / declared
            notes.append(
                f"{name}: the file is cut off: it holds {duration:.1f} s of the "
                f"{claimed:.1f} s its header claims"
            )

    def build_audio(refs: dict[str, MediaRef]) -> AudioBlock:
        return AudioBlock(
            media=refs[MAIN],
            duration_s=round(float(duration), 3) if duration else None,
            sample_rate=int(rate) if rate else None,
            channels=int(channels) if channels else None,
        )

    return Draft(blobs, build_audio, notes)
