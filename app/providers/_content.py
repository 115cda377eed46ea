"""Helpers every adapter uses to turn content blocks into provider input."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable

from app.core.errors import UnsupportedContent
from app.core.models.fit import stand_in
from app.core.quoting import quoted
from app.core.state.block_renderers import BlockRenderers
from app.core.state.message_block import (
    AnnotationBlock,
    ContentBlock,
    DataBlock,
    DocumentBlock,
    ErrorBlock,
    MediaRef,
    ToolResultBlock,
)

MEDIA_TYPES = frozenset({"image", "audio", "video", "document", "data"})
"""Block types that carry media; a model that cannot take one gets a stand-in text."""

MediaLoader = Callable[[MediaRef], bytes]
"""Reads the bytes of a ``file_id`` media reference from the media store."""

KIND_NAMES = {
    "image": "images",
    "audio": "audio",
    "video": "video",
    "document": "documents",
    "data": "binary data",
}


def unsupported(model: str, block: ContentBlock, why: str = "") -> UnsupportedContent:
    """The error for a block a model cannot take, naming the block and the way out."""
    kind = KIND_NAMES.get(block.type, f"'{block.type}' blocks")
    extra = f" {why}" if why else ""
    return UnsupportedContent(
        f"The model {model} cannot take {kind} as input.{extra} Remove the attachment or pick a "
        "model that accepts it."
    )


def is_remote(ref: MediaRef) -> bool:
    """Whether the media is an http(s) URL the provider could fetch itself."""
    return ref.kind == "url" and (ref.url or "").startswith(("http://", "https://"))


def media_bytes(ref: MediaRef, loader: MediaLoader | None, model: str) -> bytes:
    """Read the bytes of ``ref``: inline data or a media-store id. Never a file named by a
    URL or path: only what the user attached (kept in the store) is read and sent."""
    if ref.kind == "data" and ref.data_base64 is not None:
        return base64.b64decode(ref.data_base64)
    if ref.kind == "file_id":
        if loader is None:
            raise UnsupportedContent(
                f"The attachment {ref.filename or ref.file_id} is in the media store, but no "
                f"media loader was given to the {model} adapter."
            )
        return loader(ref)
    url = ref.url or ""
    if url.startswith("data:") and ";base64," in url:
        return base64.b64decode(url.split(";base64,", 1)[1])
    if is_remote(ref):
        raise UnsupportedContent(
            f"The model {model} needs the attachment's bytes, but it is only a link "
            f"({quoted(url)}). Download it and attach the file instead."
        )
    raise UnsupportedContent(
        f"The attachment {quoted(ref.filename or url)} points at a file Parley was not given "
        "(it reads only files you attach), so it was not sent. Attach the file instead."
    )


def media_base64(ref: MediaRef, loader: MediaLoader | None, model: str) -> str:
    """The media as base64 text (without a ``data:`` prefix)."""
    if ref.kind == "data" and ref.data_base64 is not None:
        return ref.data_base64
    return base64.b64encode(media_bytes(ref, loader, model)).decode("ascii")


def mime_of(ref: MediaRef, default: str) -> str:
    """The media's MIME type, or ``default`` when it is not recorded."""
    if ref.mime_type:
        return ref.mime_type
    url = ref.url or ""
    if url.startswith("data:") and ";" in url:
        return url[5 : url.index(";")]
    return default


def data_url(ref: MediaRef, loader: MediaLoader | None, model: str, default_mime: str) -> str:
    """A URL the provider can read: the http(s) URL itself or a base64 ``data:`` URL."""
    if is_remote(ref) or (ref.url or "").startswith("data:"):
        return ref.url or ""
    mime = mime_of(ref, default_mime)
    return f"data:{mime};base64,{media_base64(ref, loader, model)}"


def json_text(value: object) -> str:
    """A JSON value as text for the model; strings pass through unchanged."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def tool_output_text(block: ToolResultBlock) -> str:
    """A tool result's output as text, flagged when the tool failed.

    ``None`` is no text at all (a tool that returned only media), not the word ``null``.
    """
    text = "" if block.output is None else json_text(block.output)
    return f"Error: {text}" if block.status == "error" else text


MODEL_TEXT: BlockRenderers[None, str | None] = BlockRenderers("MODEL_TEXT")
"""The text a block carries for a model, whatever the provider (``None``: no text of its own)."""

MODEL_TEXT.ignore("text", "reasoning", because="each request format sends it as text", value=None)
MODEL_TEXT.ignore(
    "image", "audio", "video", because="a model that cannot take it gets a stand-in", value=None
)
MODEL_TEXT.ignore(
    "tool_call", "tool_result", because="each request format has its own shape", value=None
)


@MODEL_TEXT.register("document")
def _document(block: DocumentBlock, _: None) -> str | None:
    if block.text is None:
        return None
    title = block.title or block.media.filename or "document"
    return f"<document title={json.dumps(title)}>\n{block.text}\n</document>"


@MODEL_TEXT.register("data")
def _data(block: DataBlock, _: None) -> str | None:
    if block.data is not None:
        return f"Data ({block.mime_type}):\n{json_text(block.data)}"
    if block.mime_type.startswith("text/") and block.data_base64:
        return base64.b64decode(block.data_base64).decode("utf-8", errors="replace")
    return None


@MODEL_TEXT.register("error")
def _error(block: ErrorBlock, _: None) -> str:
    return f"Error: {block.error}"


@MODEL_TEXT.register("annotation")
def _annotation(block: AnnotationBlock, _: None) -> str:
    ref = block.annotation
    return f"[source: {ref.title or ''} {ref.url or ''}]".replace("  ", " ")


def text_of(block: ContentBlock) -> str | None:
    """Blocks that carry their meaning as text (extracted documents, JSON data, errors)."""
    return MODEL_TEXT.render(block, None)


def text_or_stand_in(block: ContentBlock, model: str, why: str = "") -> str:
    """A block as text for ``model``: its :func:`text_of`, else for media the line saying what
    was attached (``why``: the reason given there), else :func:`unsupported` is raised."""
    text = text_of(block)
    if text is None and block.type in MEDIA_TYPES:
        text = stand_in(block, model, why)
    if text is None:
        raise unsupported(model, block)
    return text
