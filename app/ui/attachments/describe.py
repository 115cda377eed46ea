"""Words for attachments: a chip's detail line and each block's accessible description."""

from __future__ import annotations

from app.core.state import (
    AudioBlock,
    ContentBlock,
    DataBlock,
    DocumentBlock,
    ErrorBlock,
    ImageBlock,
    ReasoningBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    VideoBlock,
)

__all__ = ["badge", "chip_detail", "describe", "duration", "file_name", "human_size"]


def human_size(n: int | None) -> str:
    """``1.5 MB`` for 1,572,864 bytes (``""`` when unknown)."""
    if n is None:
        return ""
    size = float(n)
    for unit in ("bytes", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "bytes" else f"{size:.1f} {unit}"
        size /= 1024
    return ""  # pragma: no cover - the loop always returns


def duration(seconds: float | None) -> str:
    """``1:05`` for 65 seconds (``""`` when unknown)."""
    if seconds is None:
        return ""
    whole = round(seconds)
    return f"{whole // 60}:{whole % 60:02d}"


def file_name(block: ContentBlock) -> str:
    """The name a block's file is shown by."""
    media = getattr(block, "media", None)
    name = getattr(media, "filename", None)
    if isinstance(block, DocumentBlock) and not name:
        name = block.title
    return str(
        name or {"image": "image", "audio": "sound clip", "video": "video"}.get(block.type, "file")
    )


def badge(name: str, kind: str = "") -> str:
    """A short label for a file without a picture: its extension (``PDF``), else its kind."""
    stem, dot, ext = name.rpartition(".")
    if dot and stem and 0 < len(ext) <= 4:
        return ext.upper()
    return {"audio": "♪", "video": "▶", "text": "TXT"}.get(kind, "FILE")


def _pages(block: DocumentBlock) -> str:
    if not block.pages:
        return ""
    n = len(block.pages)
    return f"{n} page" if n == 1 else f"{n} pages"


def chip_detail(block: ContentBlock) -> str:
    """A short second line for a chip: size, pages or length."""
    media = getattr(block, "media", None)
    size = human_size(getattr(media, "size_bytes", None))
    if isinstance(block, ImageBlock) and block.width and block.height:
        return f"{block.width} × {block.height} · {size}"
    if isinstance(block, DocumentBlock):
        return " · ".join(p for p in (_pages(block), size) if p)
    if isinstance(block, AudioBlock | VideoBlock) and block.duration_s is not None:
        return f"{duration(block.duration_s)} · {size}"
    if isinstance(block, DataBlock):
        return " · ".join(p for p in (block.mime_type, size) if p)
    if isinstance(block, TextBlock):  # e.g. an MCP server's resource or prompt
        n = len(block.text)
        return f"{n:,} character" if n == 1 else f"{n:,} characters"
    return size


def describe(block: ContentBlock) -> str:
    """What a screen reader says for a block that is not plain text."""
    if isinstance(block, ImageBlock):
        alt = f": {block.alt_text}" if block.alt_text else ""
        return f"Image {file_name(block)}, {chip_detail(block)}{alt}"
    if isinstance(block, DocumentBlock):
        return f"Document {file_name(block)}, {chip_detail(block)}"
    if isinstance(block, AudioBlock):
        return f"Sound clip {file_name(block)}, {chip_detail(block)}"
    if isinstance(block, VideoBlock):
        return f"Video {file_name(block)}, {chip_detail(block)}"
    if isinstance(block, DataBlock):
        return f"File {file_name(block) if block.media else 'data'}, {chip_detail(block)}"
    if isinstance(block, ToolCallBlock):
        return f"Tool call {block.name}"
    if isinstance(block, ToolResultBlock):
        return f"Result of {block.name or 'a tool'}: {block.status}"
    if isinstance(block, ReasoningBlock):
        return "Thinking (folded)"
    if isinstance(block, ErrorBlock):
        return f"Error: {block.error}"
    return ""
