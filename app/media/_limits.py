"""The limits each reader checks a file against: plain values, so building them (on the event
loop, when settings change) loads none of the decoders."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["DocxLimits", "ImageLimits", "PdfLimits"]

PILLOW_MAX_PIXELS = 89_478_485
"""Pillow's own decompression-bomb limit (``Image.MAX_IMAGE_PIXELS``)."""


@dataclass(frozen=True)
class ImageLimits:
    """How big an image may be, and how big the copies Parley makes of it are."""

    max_pixels: int = PILLOW_MAX_PIXELS
    """Bigger images are refused as possible decompression bombs (at most Pillow's limit)."""
    model_side: int = 1568
    """The longest side of the copy sent to models at most (Anthropic scales anything bigger
    down to this; OpenAI to 2048 then 768 on the short side). A JPEG's copy may come out up to
    a quarter smaller, when decoding at 1/2, 1/4 or 1/8 scale gets there without a resize."""
    model_bytes: int = 3_500_000
    """An original bigger than this is re-encoded for models (their limits are near 5 MB)."""
    thumbnail_side: int = 256


@dataclass(frozen=True)
class PdfLimits:
    """How much of a PDF is read."""

    max_pages: int = 2000
    """Text is extracted from at most this many pages (the page count is still exact)."""
    preview_side: int = 512


@dataclass(frozen=True)
class DocxLimits:
    """How much a Word document may unpack to (a zip bomb is refused before it is read: its
    parts are unpacked once, counting bytes and XML elements, before python-docx builds
    anything)."""

    max_unpacked: int = 200_000_000
    """All its parts together, in bytes, as declared and as actually unpacked."""
    max_document_xml: int = 40_000_000
    """Its text (``word/document.xml``), in bytes unpacked."""
    max_elements: int = 1_000_000
    """XML elements in all its parts: python-docx holds each in memory several times over,
    so a small file of many tiny elements would need gigabytes."""
