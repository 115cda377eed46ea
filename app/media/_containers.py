"""What an MP4/MOV or Matroska/WebM file declares about its tracks, read from its headers.

Nothing is decoded: the boxes of an ISO base media file (MP4, M4A, MOV) and the elements of
a Matroska file (MKV, WebM) say which tracks it holds, a picture's size, a sound's sample
rate and channels, and how long the whole lasts. Every length read from the file is checked
against the bytes really there, so a damaged or hostile file is refused, never trusted.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass

__all__ = ["Damaged", "Tracks", "read_matroska", "read_mp4"]


class Damaged(ValueError):
    """The container's structure is broken or holds no track list."""


@dataclass(frozen=True)
class Tracks:
    """The first picture track and the first sound track a container declares."""

    video: bool = False
    width: int | None = None
    height: int | None = None
    audio: bool = False
    sample_rate: int | None = None
    channels: int | None = None
    duration_s: float | None = None


# --- ISO base media (MP4, M4A, MOV) ----------------------------------------------------------


def _boxes(data: bytes, start: int, end: int) -> Iterator[tuple[bytes, int, int]]:
    """The boxes between ``start`` and ``end``: (type, payload start, payload end). A box that
    claims more bytes than there are ends the walk (a file cut short keeps what came before)."""
    pos = start
    while pos + 8 <= end:
        size, kind = struct.unpack_from(">I4s", data, pos)
        head = 8
        if size == 1:
            if pos + 16 > end:
                return
            size = struct.unpack_from(">Q", data, pos + 8)[0]
            head = 16
        elif size == 0:
            size = end - pos
        if size < head or pos + size > end:
            return
        yield kind, pos + head, pos + size
        pos += size


def _child(data: bytes, start: int, end: int, kind: bytes) -> tuple[int, int] | None:
    for found, begin, stop in _boxes(data, start, end):
        if found == kind:
            return begin, stop
    return None


def _timing(data: bytes, box: tuple[int, int] | None) -> tuple[int, int]:
    """(timescale, duration) from an ``mvhd`` or ``mdhd`` full box (version 0 or 1), zeros
    when it is missing, too short or says "unknown"."""
    if box is None or box[0] + 20 > box[1]:
        return 0, 0
    begin, stop = box
    if data[begin] == 1:
        if begin + 32 > stop:
            return 0, 0
        scale, length = struct.unpack_from(">IQ", data, begin + 20)
    else:
        scale, length = struct.unpack_from(">II", data, begin + 12)
    return scale, 0 if length in (0xFFFFFFFF, 0xFFFFFFFFFFFFFFFF) else length


def _fragmented(data: bytes, moov: tuple[int, int]) -> int:
    """A fragmented file's whole duration (``mvex/mehd``), in the movie's timescale."""
    mvex = _child(data, *moov, b"mvex")
    mehd = _child(data, *mvex, b"mehd") if mvex else None
    if mehd is None or mehd[0] + 8 > mehd[1]:
        return 0
    if data[mehd[0]] == 1:
        return int(struct.unpack_from(">Q", data, mehd[0] + 4)[0]) if mehd[0] + 12 <= mehd[1] else 0
    return int(struct.unpack_from(">I", data, mehd[0] + 4)[0])


def _sample_entry(data: bytes, stbl: tuple[int, int]) -> tuple[int, int] | None:
    """The first sample description's payload (after its 8-byte header)."""
    stsd = _child(data, *stbl, b"stsd")
    if stsd is None or stsd[0] + 16 > stsd[1]:
        return None
    entry = stsd[0] + 8  # version, flags, entry count
    size = struct.unpack_from(">I", data, entry)[0]
    if size < 36 or entry + size > stsd[1]:
        return None
    return entry + 8, entry + size


def read_mp4(data: bytes) -> Tracks:
    """The tracks an MP4, M4A or MOV file declares; raises :class:`Damaged` without a
    readable ``moov`` box (a file cut before its index, or not one at all)."""
    moov = _child(data, 0, len(data), b"moov")
    if moov is None:
        raise Damaged("no moov box")
    scale, length = _timing(data, _child(data, *moov, b"mvhd"))
    length = length or _fragmented(data, moov)
    duration = length / scale if scale and length else None
    video = audio = None
    for kind, begin, stop in _boxes(data, *moov):
        if kind != b"trak":
            continue
        mdia = _child(data, begin, stop, b"mdia")
        hdlr = _child(data, *mdia, b"hdlr") if mdia else None
        if mdia is None or hdlr is None or hdlr[0] + 12 > hdlr[1]:
            continue
        handler = data[hdlr[0] + 8 : hdlr[0] + 12]
        minf = _child(data, *mdia, b"minf")
        stbl = _child(data, *minf, b"stbl") if minf else None
        entry = _sample_entry(data, stbl) if stbl else None
        if duration is None:
            track_scale, track_length = _timing(data, _child(data, *mdia, b"mdhd"))
            duration = track_length / track_scale if track_scale and track_length else None
        if handler == b"vide" and video is None:
            video = struct.unpack_from(">HH", data, entry[0] + 24) if entry else (0, 0)
        elif handler == b"soun" and audio is None:
            if entry is None or entry[0] + 28 > entry[1]:
                audio = (0, 0)
            else:
                channels = struct.unpack_from(">H", data, entry[0] + 16)[0]
                rate = struct.unpack_from(">I", data, entry[0] + 24)[0] >> 16
                audio = (rate, channels)
    return Tracks(
        video=video is not None,
        width=(video[0] or None) if video else None,
        height=(video[1] or None) if video else None,
        audio=audio is not None,
        sample_rate=(audio[0] or None) if audio else None,
        channels=(audio[1] or None) if audio else None,
        duration_s=duration,
    )


# --- Matroska (MKV, WebM) --------------------------------------------------------------------

_EBML, _SEGMENT, _CLUSTER = 0x1A45DFA3, 0x18538067, 0x1F43B675
_INFO, _TRACKS = 0x1549A966, 0x1654AE6B
_TIMESTAMP_SCALE, _DURATION = 0x2AD7B1, 0x4489
_TRACK_ENTRY, _TRACK_TYPE, _VIDEO, _AUDIO = 0xAE, 0x83, 0xE0, 0xE1
_PIXEL_WIDTH, _PIXEL_HEIGHT, _SAMPLING_FREQUENCY, _CHANNELS = 0xB0, 0xBA, 0xB5, 0x9F
_UNKNOWN = -1


def _vint(data: bytes, pos: int, *, keep_marker: bool) -> tuple[int, int]:
    """A variable-length integer at ``pos``: (value, position after it); an element ID keeps
    its length marker, a size loses it (all ones: an unknown size, :data:`_UNKNOWN`)."""
    if pos >= len(data) or data[pos] == 0:
        raise Damaged("bad variable-length integer")
    first = data[pos]
    length = 9 - first.bit_length()
    if pos + length > len(data):
        raise Damaged("cut-off variable-length integer")
    value = first if keep_marker else first & (0xFF >> length)
    for byte in data[pos + 1 : pos + length]:
        value = (value << 8) | byte
    if not keep_marker and value == (1 << (7 * length)) - 1:
        return _UNKNOWN, pos + length
    return value, pos + length


def _elements(data: bytes, start: int, end: int) -> Iterator[tuple[int, int, int]]:
    """The elements between ``start`` and ``end``: (ID, payload start, payload end). An
    element of unknown size, or one cut short by the end of the file, runs to ``end``."""
    pos = start
    while pos < end:
        ident, pos = _vint(data, pos, keep_marker=True)
        size, pos = _vint(data, pos, keep_marker=False)
        stop = end if size == _UNKNOWN or pos + size > end else pos + size
        yield ident, pos, stop
        pos = stop


def _uint(data: bytes, begin: int, stop: int) -> int:
    return int.from_bytes(data[begin:stop], "big") if stop - begin <= 8 else 0


def _float(data: bytes, begin: int, stop: int) -> float | None:
    if stop - begin == 4:
        return float(struct.unpack_from(">f", data, begin)[0])
    if stop - begin == 8:
        return float(struct.unpack_from(">d", data, begin)[0])
    return None


def read_matroska(data: bytes) -> Tracks:
    """The tracks a Matroska or WebM file declares; raises :class:`Damaged` when its
    structure is broken or it has no track list before its first cluster of frames."""
    elements = _elements(data, 0, len(data))
    first = next(elements, None)
    if first is None or first[0] != _EBML:
        raise Damaged("no EBML header")
    segment = next((e for e in elements if e[0] == _SEGMENT), None)
    if segment is None:
        raise Damaged("no segment")
    scale, length, tracks = 1_000_000, None, None
    for ident, begin, stop in _elements(data, segment[1], segment[2]):
        if ident == _INFO:
            for child, b, s in _elements(data, begin, stop):
                if child == _TIMESTAMP_SCALE:
                    scale = _uint(data, b, s) or scale
                elif child == _DURATION:
                    length = _float(data, b, s)
        elif ident == _TRACKS:
            tracks = (begin, stop)
        elif ident == _CLUSTER:
            break
    if tracks is None:
        raise Damaged("no track list")
    video: tuple[int, int] | None = None
    audio: tuple[int, int] | None = None
    for ident, begin, stop in _elements(data, *tracks):
        if ident != _TRACK_ENTRY:
            continue
        kind, picture, sound = 0, (0, 0), (0, 1)
        for child, b, s in _elements(data, begin, stop):
            if child == _TRACK_TYPE:
                kind = _uint(data, b, s)
            elif child == _VIDEO:
                found = {i: _uint(data, bb, ss) for i, bb, ss in _elements(data, b, s)}
                picture = (found.get(_PIXEL_WIDTH, 0), found.get(_PIXEL_HEIGHT, 0))
            elif child == _AUDIO:
                rate, channels = 0.0, 1
                for i, bb, ss in _elements(data, b, s):
                    if i == _SAMPLING_FREQUENCY:
                        rate = _float(data, bb, ss) or 0.0
                    elif i == _CHANNELS:
                        channels = _uint(data, bb, ss)
                sound = (round(rate), channels)
        if kind == 1 and video is None:
            video = picture
        elif kind == 2 and audio is None:
            audio = sound
    seconds = length * scale / 1e9 if length and length > 0 else None
    return Tracks(
        video=video is not None,
        width=(video[0] or None) if video else None,
        height=(video[1] or None) if video else None,
        audio=audio is not None,
        sample_rate=(audio[0] or None) if audio else None,
        channels=(audio[1] or None) if audio else None,
        duration_s=seconds,
    )
