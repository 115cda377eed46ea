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
from app.core.state.block_renderers import BlockRenderers
from app.text import sizes

__all__ = [
    "ATTACHMENT_DESCRIPTION",
    "ATTACHMENT_DETAIL",
    "badge",
    "chip_detail",
    "describe",
    "duration",
    "file_name",
    "human_size",
    "kind_icon",
]


def human_size(n: int | None) -> str:
    """``1.6 MB`` for 1,572,864 bytes, as every size in Parley reads (``""`` when unknown)."""
    return "" if n is None else sizes.human_size(n)


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


_BY_EXTENSION = {
    "pdf": "file-pdf-line",
    "zip": "file-zip-line",
    "csv": "file-excel-2-line",
    "xlsx": "file-excel-2-line",
    "json": "file-code-line",
    "py": "file-code-line",
    "js": "file-code-line",
    "ts": "file-code-line",
    "html": "file-code-line",
    "txt": "file-text-line",
    "md": "file-text-line",
}
_BY_KIND = {
    "image": "image-line",
    "audio": "music-2-line",
    "video": "film-line",
    "text": "file-text-line",
    "document": "file-text-line",
    "data": "database-2-line",
}


def kind_icon(name: str, kind: str = "") -> str:
    """The icon (a name in the one icon font) of a file: by its extension, else its kind."""
    _, dot, ext = name.rpartition(".")
    by_ext = _BY_EXTENSION.get(ext.lower()) if dot else None
    if kind in ("image", "audio", "video"):
        return _BY_KIND[kind]
    return by_ext or _BY_KIND.get(kind, "file-3-line")


def _pages(block: DocumentBlock) -> str:
    if not block.pages:
        return ""
    n = len(block.pages)
    return f"{n} page" if n == 1 else f"{n} pages"


def _size(block: ContentBlock) -> str:
    return human_size(getattr(getattr(block, "media", None), "size_bytes", None))


ATTACHMENT_DETAIL: BlockRenderers[None, str] = BlockRenderers("ATTACHMENT_DETAIL")
"""Each block type's chip detail line: size, pages or length."""


@ATTACHMENT_DETAIL.register("tool_call", "tool_result", "reasoning", "error", "annotation")
def _size_only(block: ContentBlock, _: None) -> str:
    return _size(block)


@ATTACHMENT_DETAIL.register("image")
def _image_detail(block: ImageBlock, _: None) -> str:
    if block.width and block.height:
        return f"{block.width} × {block.height} · {_size(block)}"
    return _size(block)


@ATTACHMENT_DETAIL.register("document")
def _document_detail(block: DocumentBlock, _: None) -> str:
    return " · ".join(p for p in (_pages(block), _size(block)) if p)


@ATTACHMENT_DETAIL.register("audio", "video")
def _clip_detail(block: AudioBlock | VideoBlock, _: None) -> str:
    parts = [duration(block.duration_s)] if block.duration_s is not None else []
    parts.append(_size(block))
    if isinstance(block, AudioBlock) and block.transcript:
        # on this computer: a model that takes no audio reads it; first, as the chip is narrow
        parts.insert(0, "transcribed")
    return " · ".join(parts)


@ATTACHMENT_DETAIL.register("data")
def _data_detail(block: DataBlock, _: None) -> str:
    return " · ".join(p for p in (block.mime_type, _size(block)) if p)


@ATTACHMENT_DETAIL.register("text")  # e.g. an MCP server's resource or prompt
def _text_detail(block: TextBlock, _: None) -> str:
    n = len(block.text)
    return f"{n:,} character" if n == 1 else f"{n:,} characters"


def chip_detail(block: ContentBlock) -> str:
    """A short second line for a chip: size, pages or length."""
    return ATTACHMENT_DETAIL.render(block, None)


ATTACHMENT_DESCRIPTION: BlockRenderers[None, str] = BlockRenderers("ATTACHMENT_DESCRIPTION")
"""What a screen reader says for each block type that is not plain text."""

ATTACHMENT_DESCRIPTION.ignore(
    "text", "annotation", because="read as the message's own text", value=""
)


@ATTACHMENT_DESCRIPTION.register("image")
def _image(block: ImageBlock, _: None) -> str:
    alt = f": {block.alt_text}" if block.alt_text else ""
    return f"Image {file_name(block)}, {chip_detail(block)}{alt}"


@ATTACHMENT_DESCRIPTION.register("document")
def _document(block: DocumentBlock, _: None) -> str:
    return f"Document {file_name(block)}, {chip_detail(block)}"


@ATTACHMENT_DESCRIPTION.register("audio")
def _audio(block: AudioBlock, _: None) -> str:
    return f"Sound clip {file_name(block)}, {chip_detail(block)}"


@ATTACHMENT_DESCRIPTION.register("video")
def _video(block: VideoBlock, _: None) -> str:
    return f"Video {file_name(block)}, {chip_detail(block)}"


@ATTACHMENT_DESCRIPTION.register("data")
def _data(block: DataBlock, _: None) -> str:
    return f"File {file_name(block) if block.media else 'data'}, {chip_detail(block)}"


@ATTACHMENT_DESCRIPTION.register("tool_call")
def _tool_call(block: ToolCallBlock, _: None) -> str:
    return f"Tool call {block.name}"


@ATTACHMENT_DESCRIPTION.register("tool_result")
def _tool_result(block: ToolResultBlock, _: None) -> str:
    return f"Result of {block.name or 'a tool'}: {block.status}"


@ATTACHMENT_DESCRIPTION.register("reasoning")
def _reasoning(block: ReasoningBlock, _: None) -> str:
    return "Thinking (folded)"


@ATTACHMENT_DESCRIPTION.register("error")
def _error(block: ErrorBlock, _: None) -> str:
    return f"Error: {block.error}"


def describe(block: ContentBlock) -> str:
    """What a screen reader says for a block that is not plain text."""
    return ATTACHMENT_DESCRIPTION.render(block, None)
