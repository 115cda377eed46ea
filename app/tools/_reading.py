"""Reading part of a file without reading all of it: capped, UTF-8 safe, binary-aware."""

from __future__ import annotations

import codecs
import os
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Chunk", "media_type", "read_chunk"]

_MAGIC: tuple[tuple[bytes, str], ...] = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
    (b"%PDF-", "application/pdf"),
    (b"BM", "image/bmp"),
)
_SUFFIXES = {
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
    ".bmp": "image/bmp",
    ".pdf": "application/pdf",
}


def media_type(path: Path, head: bytes) -> str | None:
    """The image or PDF type of a file from its first bytes or its suffix, else ``None``."""
    for magic, mime in _MAGIC:
        if head.startswith(magic):
            return mime
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "image/webp"
    return _SUFFIXES.get(path.suffix.lower())


@dataclass(frozen=True, slots=True)
class Chunk:
    """Text read from ``offset``: ``end`` is where reading stopped, ``size`` the file's size."""

    text: str
    offset: int
    end: int
    size: int
    binary: bool

    @property
    def cut(self) -> bool:
        """Whether the file goes on after this chunk."""
        return self.end < self.size


def read_chunk(fd: int, offset: int, limit: int) -> Chunk:
    """Read at most ``limit`` bytes from ``offset`` and decode them as UTF-8.

    Stops before a character cut in half, so the next chunk starts on a whole character; bytes
    that are not UTF-8 become U+FFFD. A NUL byte in the first 8 KiB marks the file as binary.
    """
    size = os.fstat(fd).st_size
    offset = max(0, min(offset, size))
    data = os.pread(fd, limit, offset)
    if b"\x00" in os.pread(fd, 8192, 0):
        return Chunk("", offset, offset, size, binary=True)
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    final = offset + len(data) >= size
    text = decoder.decode(data, final=final)
    pending = len(decoder.getstate()[0])
    return Chunk(text, offset, offset + len(data) - pending, size, binary=False)
