"""Telling what a file is from its bytes, not its name.

The decoders themselves are the judges where they can be: Pillow recognises images by their
headers, ``zipfile`` finds a Word document's parts. A/V containers are recognised by their
signatures here and confirmed by the decoders; anything else gets a MIME type from puremagic.
"""

from __future__ import annotations

import io
import mimetypes
import zipfile
from typing import Literal

import puremagic
from PIL import Image, UnidentifiedImageError

Family = Literal["image", "pdf", "docx", "av", "text", "data"]

IMAGE_FORMATS = ("PNG", "JPEG", "WEBP", "GIF", "BMP", "TIFF")
"""Image formats attached as images (Pillow's names)."""

DOCX_MIME = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"

_AV_EXTENSIONS = [
    ".wav",
    ".mp3",
    ".ogg",
    ".oga",
    ".opus",
    ".flac",
    ".m4a",
    ".mp4",
    ".m4v",
    ".mov",
    ".webm",
    ".mkv",
]
_CLAIMS: dict[str, tuple[Family, str]] = {
    **{
        ext: ("image", "a PNG, JPEG, WebP, GIF, BMP or TIFF image")
        for ext in (".png", ".jpg", ".jpeg", ".webp", ".gif", ".bmp", ".tif", ".tiff")
    },
    ".pdf": ("pdf", "a PDF"),
    ".docx": ("docx", "a Word document"),
    **{ext: ("av", "an audio or video file") for ext in _AV_EXTENSIONS},
}


def claimed(name: str) -> tuple[Family, str] | None:
    """What the file's extension claims it is (used only to word an error), if anything."""
    dot = name.rfind(".")
    return _CLAIMS.get(name[dot:].lower()) if dot >= 0 else None


def is_av(head: bytes) -> bool:
    """Whether ``head`` starts like a WAV, MP3, Ogg, FLAC, MP4/M4A/MOV or Matroska/WebM file."""
    return (
        (head[:4] == b"RIFF" and head[8:12] == b"WAVE")
        or head[:3] == b"ID3"
        or (len(head) > 1 and head[0] == 0xFF and head[1] & 0xE0 == 0xE0 and head[1] & 0x06 != 0)
        or head[:4] in (b"OggS", b"fLaC", b"\x1a\x45\xdf\xa3")
        or head[4:8] == b"ftyp"
    )


def _is_image(data: bytes) -> bool:
    """Pillow recognises the header (a header that is too big is still an image)."""
    try:
        with Image.open(io.BytesIO(data), formats=IMAGE_FORMATS):
            return True
    except (Image.DecompressionBombError, Image.DecompressionBombWarning):
        return True
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError, EOFError):
        return False


def _strong_image_signature(head: bytes) -> bool:
    """Signatures no text file starts with (BMP's two letters are left to Pillow)."""
    return head.startswith((b"\x89PNG\r\n", b"\xff\xd8\xff", b"GIF87a", b"GIF89a")) or (
        head.startswith((b"II*\0", b"MM\0*")) or (head[:4] == b"RIFF" and head[8:12] == b"WEBP")
    )


def _is_docx(data: bytes) -> bool:
    if not data.startswith(b"PK\x03\x04"):
        return False
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            return "word/document.xml" in zf.namelist()
    except (zipfile.BadZipFile, OSError, ValueError):
        return False


_CONTROLS = bytes(b for b in range(32) if b not in (9, 10, 12, 13, 27))
"""Control bytes that text hardly ever holds (tab, newlines, form feed and escape it may)."""


def looks_like_text(data: bytes) -> bool:
    """Whether ``data`` is text: no NUL bytes (unless UTF-16/32 with a BOM) and few controls."""
    head = data[:65536]
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return True
    if b"\0" in head:
        return False
    controls = len(head) - len(head.translate(None, _CONTROLS))
    return controls <= len(head) // 100


def family_of(data: bytes) -> Family:
    """What kind of extractor reads ``data``."""
    head = data[:4096]
    if head.startswith((b"\xff\xfe", b"\xfe\xff", b"\xef\xbb\xbf")) and looks_like_text(data):
        return "text"
    if b"%PDF-" in head[:1024]:
        return "pdf"
    if _strong_image_signature(head) or _is_image(data):
        return "image"
    if _is_docx(data):
        return "docx"
    if is_av(head):
        return "av"
    if looks_like_text(data):
        return "text"
    return "data"


def data_mime(data: bytes) -> str:
    """A MIME type for bytes no extractor reads: puremagic's guess from the content, or
    ``application/octet-stream``."""
    if data.startswith(b"PK\x03\x04"):
        # puremagic calls every zip an Office document; only a look inside can tell
        return _zip_mime(data)
    try:
        matches = puremagic.magic_string(data[:65536])
    except (puremagic.PureError, ValueError):
        matches = []
    for match in matches:
        if match.mime_type:
            return str(match.mime_type)
    for match in matches:
        guessed, _ = mimetypes.guess_type(f"x{match.extension}")
        if guessed:
            return guessed
    return "application/octet-stream"


_OFFICE = {
    "xl/workbook.xml": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    "ppt/presentation.xml": "application/vnd.openxmlformats-officedocument.presentationml"
    ".presentation",
    "content.xml": "application/vnd.oasis.opendocument",
}


def _zip_mime(data: bytes) -> str:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as zf:
            names = set(zf.namelist())
    except (zipfile.BadZipFile, OSError, ValueError):
        return "application/zip"
    return next((mime for part, mime in _OFFICE.items() if part in names), "application/zip")
