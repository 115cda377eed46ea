"""Pasted data (the formats of a clipboard or drag, by MIME type) as ingest sources."""

from __future__ import annotations

import mimetypes
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import unquote, urlparse

from app.media.ingest import BytesSource, Source

__all__ = ["sources_from_clipboard"]

_PREFERRED_IMAGES = ("image/png", "image/jpeg", "image/webp", "image/gif", "image/bmp")


def _paths(uri_list: bytes) -> list[Source]:
    out: list[Source] = []
    for line in uri_list.decode("utf-8", errors="replace").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        url = urlparse(line)
        if url.scheme == "file":
            out.append(Path(unquote(url.path)))
    return out


def _name(mime: str, stem: str) -> str:
    ext = mimetypes.guess_extension(mime) or ".bin"
    return f"{stem}{'.jpg' if ext == '.jpe' else ext}"


def sources_from_clipboard(formats: Mapping[str, bytes]) -> list[Source]:
    """What a paste attaches: the files it names (``text/uri-list``), else one image, else
    one other binary payload. Plain text alone attaches nothing: it belongs in the composer.
    """
    if formats.get("text/uri-list"):
        files = _paths(formats["text/uri-list"])
        if files:
            return files
    images = [m for m in _PREFERRED_IMAGES if formats.get(m)]
    images += [m for m in formats if m.startswith("image/") and formats[m] and m not in images]
    if images:
        return [BytesSource(formats[images[0]], _name(images[0], "pasted image"))]
    for mime, data in formats.items():
        if data and not mime.startswith("text/") and "/" in mime:
            return [BytesSource(data, _name(mime, "pasted"))]
    return []
