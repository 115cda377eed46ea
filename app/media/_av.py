"""Audio and video: duration, sample rate, channels, a picture's size; nothing is decoded.

An MP4/MOV or Matroska/WebM file is told audio or video by the tracks its headers declare
(an MP4 with only sound is audio; cover art is no track); mutagen reads the other audio
formats (WAV, MP3, Ogg, FLAC) and an M4A's sound. A video's thumbnail is decoded later by
the frame source the ingest was given (the window's media decoder): :attr:`Draft.frame_at`
says where.
"""

from __future__ import annotations

import io
import struct
from dataclasses import dataclass

import mutagen
from mutagen.oggopus import OggOpusInfo

from app.core.state.message_block import AudioBlock, MediaRef, VideoBlock
from app.media._containers import Damaged, Tracks, read_matroska, read_mp4
from app.media._draft import MAIN, Blob, Draft
from app.media._util import Job
from app.media.errors import IngestError

_UNREADABLE = "it is not a readable audio or video file"

MAX_THUMBNAIL_PIXELS = 8192 * 8192
"""A video whose picture is declared larger than this gets no thumbnail: decoding one frame
of it could take gigabytes (8K video is a half of it)."""


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


@dataclass(frozen=True)
class _Sound:
    duration_s: float | None
    sample_rate: int | None
    channels: int | None


def _mutagen(data: bytes) -> _Sound | None:
    """What mutagen reads of a sound file, or ``None`` when it cannot read it."""
    try:
        info = getattr(mutagen.File(io.BytesIO(data)), "info", None)
    except (mutagen.MutagenError, OSError, ValueError, EOFError, IndexError, KeyError):
        return None
    if info is None:
        return None
    # Opus always decodes at 48 kHz (its header's rate is the one it was made from)
    rate = 48000 if isinstance(info, OggOpusInfo) else getattr(info, "sample_rate", None)
    return _Sound(
        getattr(info, "length", None) or None,
        rate or None,
        getattr(info, "channels", None) or None,
    )


def _theora(data: bytes) -> Tracks | None:
    """An Ogg file whose first stream is Theora video: its picture size (from the Theora
    identification header) and length (mutagen); ``None`` for Ogg sound."""
    at = data.find(b"\x80theora", 0, 4096)
    if at < 0 or at + 20 > len(data):
        return None
    width = int.from_bytes(data[at + 14 : at + 17], "big")
    height = int.from_bytes(data[at + 17 : at + 20], "big")
    sound = _mutagen(data)
    length = sound.duration_s if sound else None
    return Tracks(True, width or None, height or None, duration_s=length)


def _tracks(data: bytes, name: str) -> Tracks | None:
    """The tracks of an MP4/MOV, Matroska/WebM or Ogg Theora file, ``None`` for a format
    that only holds sound."""
    if data[:4] == b"OggS":
        return _theora(data)
    if data[4:8] == b"ftyp":
        reader = read_mp4
    elif data[:4] == b"\x1a\x45\xdf\xa3":
        reader = read_matroska
    else:
        return None
    try:
        tracks = reader(data)
    except (Damaged, IndexError, OverflowError, struct.error):
        raise IngestError(name, _UNREADABLE) from None
    if not tracks.video and not tracks.audio:
        raise IngestError(name, "it is a media container with no sound or picture in it")
    return tracks


def _frame_at(duration: float | None) -> float:
    """Where a thumbnail is taken: a tenth of the way in (at most 3 s: past a fade-in, still
    the opening scene), the start of a clip of a second or less."""
    return min(3.0, duration / 10) if duration and duration > 1 else 0.0


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
    tracks = _tracks(data, name)
    video = tracks is not None and tracks.video
    mime = _mime(data[:64], video)
    blobs = {MAIN: Blob(data, mime, name)}
    if tracks is not None and video:

        def build_video(refs: dict[str, MediaRef]) -> VideoBlock:
            return VideoBlock(
                media=refs[MAIN],
                thumbnail=refs.get("thumbnail"),
                duration_s=tracks.duration_s,
                width=tracks.width,
                height=tracks.height,
            )

        pixels = (tracks.width or 0) * (tracks.height or 0)
        if pixels > MAX_THUMBNAIL_PIXELS:
            note = (
                f"{name}: no thumbnail: its picture, {tracks.width} × {tracks.height} pixels, "
                "is too large to decode safely"
            )
            return Draft(blobs, build_video, [note])
        return Draft(blobs, build_video, frame_at=_frame_at(tracks.duration_s))
    wav = _wav_data(data) if mime == "audio/wav" else None
    if wav is not None and wav[1] == 0 < wav[0]:
        raise IngestError(name, "it is a WAV file with no sound data in it (cut off?)")
    sound = _mutagen(data) if data[:4] != b"\x1a\x45\xdf\xa3" else None
    if tracks is None and sound is None:
        raise IngestError(name, _UNREADABLE)
    declared = tracks or Tracks()
    duration = (sound and sound.duration_s) or declared.duration_s
    rate = (sound and sound.sample_rate) or declared.sample_rate
    channels = (sound and sound.channels) or declared.channels
    notes = []
    if wav is not None and wav[1] < wav[0]:
        declared_bytes, present = wav
        if duration:
            claimed = float(duration)
            duration = claimed * present / declared_bytes
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
