"""Media blocks as rich text for the chat delegate: image thumbnails, document, audio, video
and file cards.

Pictures are ``<img src="thumb:SHA256">`` with their size fixed in the tag, so laying a message
out never decodes an image; :class:`~app.ui.chat.blocks.document.MediaDocument` supplies the
picture when the row is painted. Links carry the view's intents: ``media:view:N`` (open image
N of the message in the viewer), ``media:play:N``, ``media:open:N`` (with the system's app) and
``media:save:N`` (Save as…).
"""

from __future__ import annotations

import html
from dataclasses import dataclass

from app.core.state import (
    AudioBlock,
    DataBlock,
    DocumentBlock,
    ImageBlock,
    MediaRef,
    VideoBlock,
)
from app.ui.attachments.describe import chip_detail, describe, file_name, kind_icon
from app.ui.chat.links import MediaAction, href_of
from app.ui.icons import glyph_html
from app.ui.theme import roles

__all__ = [
    "THUMB_BOX",
    "BlockSlot",
    "audio_html",
    "data_html",
    "document_html",
    "image_html",
    "image_size",
    "outline_box",
    "video_html",
]


@dataclass(frozen=True)
class BlockSlot:
    """Where a block is drawn: its position in the message (what its links name) and whether
    the theme is dark."""

    index: int
    dark: bool


THUMB_BOX = (256, 256)
"""The largest an image thumbnail is drawn in the chat (the stored thumbnail's size, so it
is drawn at its own pixels)."""


def image_size(
    width: int | None, height: int | None, box: tuple[int, int] = THUMB_BOX
) -> tuple[int, int]:
    """The drawn size of a ``width`` × ``height`` picture fitted into ``box``."""
    if not width or not height:
        return box
    scale = min(1.0, box[0] / width, box[1] / height)
    return max(1, round(width * scale)), max(1, round(height * scale))


def _key(ref: MediaRef | None) -> str:
    return "" if ref is None else ref.file_id or ref.sha256 or ""


def outline_box(block: ImageBlock) -> str:
    """``block.bbox`` (left, top, right, bottom in the image's pixels, or fractions of its
    size when all are at most 1) as fractions ``"l,t,r,b"``; ``""`` when there is none."""
    box = block.bbox
    if not box or len(box) != 4:
        return ""
    if max(box) > 1:
        if not block.width or not block.height:
            return ""
        box = [box[0] / block.width, box[1] / block.height, box[2] / block.width,
               box[3] / block.height]  # fmt: skip
    return ",".join(f"{min(1.0, max(0.0, v)):.4f}" for v in box)


def _img(ref: MediaRef | None, size: tuple[int, int], alt: str, box: str = "") -> str:
    key = html.escape(_key(ref)) + (f"?box={box}" if box else "")
    return (
        f'<img src="thumb:{key}" width="{size[0]}" height="{size[1]}" '
        f'alt="{html.escape(alt)}" title="{html.escape(alt)}">'
    )


def _href(action: str, i: int) -> str:
    return html.escape(href_of(MediaAction(action, i)))


def _links(i: int, *actions: tuple[str, str]) -> str:
    return " &nbsp;·&nbsp; ".join(
        f'<a href="{_href(what, i)}" style="text-decoration:none;">{label}</a>'
        for what, label in actions
    )


def _card(dark: bool, left: str, right: str, width: str = "420") -> str:
    bg, line = roles(dark).surface, roles(dark).border
    cell = f'<td valign="top" width="1" style="padding-right:10px;">{left}</td>' if left else ""
    inner = (
        f'<table cellspacing="0" cellpadding="0" border="0"><tr>{cell}'
        f'<td valign="top">{right}</td></tr></table>'
    )
    return (
        f'<table width="{width}" cellspacing="0" cellpadding="8" bgcolor="{bg}" border="1" '
        f'style="margin-top:6px; margin-bottom:4px; border-collapse:collapse; '
        f'border-style:solid; border-color:{line};"><tr><td>{inner}</td></tr></table>'
    )


def _kind(block: DocumentBlock | AudioBlock | DataBlock, dark: bool) -> str:
    """The icon of the block's kind, large, for a card's left side (no words: the card says
    them)."""
    mark = glyph_html(kind_icon(file_name(block), block.type), roles(dark).muted)
    return f'<span style="font-size:22px;">{mark}</span>'


def _title(name: str, detail: str, dark: bool) -> str:
    muted = roles(dark).muted
    return (
        f'<b>{html.escape(name)}</b><br/><span style="color:{muted};">{html.escape(detail)}</span>'
    )


def image_html(block: ImageBlock, at: BlockSlot) -> str:
    """An image: its thumbnail (a link to the viewer), name, size and actions."""
    name, detail, i = file_name(block), chip_detail(block), at.index
    size = image_size(block.width, block.height)
    alt = block.alt_text or describe(block)
    picture = _img(block.thumbnail or block.media, size, alt, outline_box(block))
    caption = (
        f'<br/><span style="color:{roles(at.dark).muted};">{html.escape(name)} · {detail}</span>'
    )
    return (
        f'<p style="margin-top:6px;"><a href="{_href("view", i)}">{picture}</a>{caption}'
        f"<br/>{_links(i, ('view', 'View'), ('save', 'Save as…'))}</p>"
    )


def document_html(block: DocumentBlock, at: BlockSlot) -> str:
    """A document card: its first page, kind, pages, an excerpt and actions."""
    name, detail, i = file_name(block), chip_detail(block), at.index
    preview = ""
    if block.preview is not None:
        preview = f'<a href="{_href("open", i)}">{_img(block.preview, (72, 96), name)}</a>'
    else:
        preview = _kind(block, at.dark)
    excerpt = (block.excerpt or (block.text or "")[:300]).strip()
    if len(excerpt) > 280:
        excerpt = excerpt[:279] + "…"
    kind = (block.media.mime_type or "").split("/")[-1].upper()
    kind = {"PLAIN": "Text", "MARKDOWN": "Markdown"}.get(kind, kind)
    words = " · ".join(p for p in (kind if len(kind) <= 10 else "", detail) if p)
    body = _title(name, words, at.dark)
    if excerpt:
        body += (
            f'<br/><span style="color:{roles(at.dark).muted};"><i>{html.escape(excerpt)}</i></span>'
        )
    shown = (("open", "Open"), ("text", "Show text")) if block.text else (("open", "Open"),)
    body += "<br/>" + _links(i, *shown, ("save", "Save as…"))
    return _card(at.dark, preview, body, "100%")


def audio_html(block: AudioBlock, at: BlockSlot) -> str:
    """A sound clip card: name, length, the transcript's start, Play and Save as…."""
    body = _title(file_name(block), chip_detail(block), at.dark)
    if block.transcript:
        body += f"<br/><i>{html.escape(block.transcript[:400])}</i>"
    body += "<br/>" + _links(at.index, ("play", "▶ Play"), ("save", "Save as…"))
    return _card(at.dark, _kind(block, at.dark), body)


def video_html(block: VideoBlock, at: BlockSlot) -> str:
    """A video card: its poster frame (a link to play it), name, length and actions."""
    name, i = file_name(block), at.index
    size = image_size(block.width, block.height, (160, 120))
    poster = (
        f'<a href="{_href("play", i)}">{_img(block.thumbnail, size, name)}</a>'
        if block.thumbnail is not None
        else ""
    )
    body = _title(name, chip_detail(block), at.dark)
    body += "<br/>" + _links(i, ("play", "▶ Play"), ("save", "Save as…"))
    return _card(at.dark, poster, body)


def data_html(block: DataBlock, at: BlockSlot) -> str:
    """A file card: name (or "Data"), type and size, and Save as… when there is a file."""
    body = _title(file_name(block) if block.media else "Data", chip_detail(block), at.dark)
    if block.media is not None:
        body += "<br/>" + _links(at.index, ("save", "Save as…"))
    return _card(at.dark, _kind(block, at.dark), body)
