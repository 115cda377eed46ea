"""MCP content (tool results, resources, prompt messages) as Parley content blocks."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterable

import mcp.types as mcp_types

from app.core.state.message_block import (
    AudioBlock,
    ContentBlock,
    DocumentBlock,
    ImageBlock,
    MediaRef,
    TextBlock,
)

__all__ = ["blocks_of", "prompt_blocks", "resource_blocks"]


def _size(data_base64: str) -> int | None:
    try:
        return len(base64.b64decode(data_base64, validate=True))
    except (binascii.Error, ValueError):
        return None


def _media(data_base64: str, mime_type: str | None, filename: str | None = None) -> MediaRef:
    return MediaRef(
        kind="data",
        data_base64=data_base64,
        mime_type=mime_type,
        filename=filename,
        size_bytes=_size(data_base64),
    )


def _resource(
    contents: mcp_types.TextResourceContents | mcp_types.BlobResourceContents,
) -> ContentBlock:
    if isinstance(contents, mcp_types.TextResourceContents):
        return TextBlock(text=contents.text)
    mime = contents.mime_type or "application/octet-stream"
    name = contents.uri.rstrip("/").rsplit("/", 1)[-1] or None
    media = _media(contents.blob, mime, name)
    if mime.startswith("image/"):
        return ImageBlock(media=media, alt_text=contents.uri)
    if mime.startswith("audio/"):
        return AudioBlock(media=media)
    return DocumentBlock(media=media, title=contents.uri)


def blocks_of(content: Iterable[mcp_types.ContentBlock]) -> list[ContentBlock]:
    """Turn the content of an MCP tool result or prompt message into Parley blocks."""
    blocks: list[ContentBlock] = []
    for item in content:
        if isinstance(item, mcp_types.TextContent):
            blocks.append(TextBlock(text=item.text))
        elif isinstance(item, mcp_types.ImageContent):
            blocks.append(ImageBlock(media=_media(item.data, item.mime_type)))
        elif isinstance(item, mcp_types.AudioContent):
            blocks.append(AudioBlock(media=_media(item.data, item.mime_type)))
        elif isinstance(item, mcp_types.EmbeddedResource):
            blocks.append(_resource(item.resource))
        elif isinstance(item, mcp_types.ResourceLink):
            about = f": {item.description}" if item.description else ""
            blocks.append(TextBlock(text=f"[resource {item.name} at {item.uri}{about}]"))
    return blocks


def resource_blocks(result: mcp_types.ReadResourceResult) -> list[ContentBlock]:
    """The blocks of a resource that was read, ready to attach to a message."""
    return [_resource(c) for c in result.contents]


def prompt_blocks(result: mcp_types.GetPromptResult) -> list[ContentBlock]:
    """The blocks of a prompt's messages, in order, ready to attach to a message.

    The prompt's messages are joined into one; text the server meant as the assistant's is
    marked so the model can tell the voices apart.
    """
    blocks: list[ContentBlock] = []
    for message in result.messages:
        for block in blocks_of([message.content]):
            if message.role == "assistant" and isinstance(block, TextBlock):
                block = TextBlock(text=f"(assistant) {block.text}")
            blocks.append(block)
    return blocks
