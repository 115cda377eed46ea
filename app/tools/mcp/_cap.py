"""A server's tool result cut to what is worth keeping and sending, as the web tools cut a page.

Text is kept up to :data:`MAX_RESULT_CHARS` characters over all its blocks and media up to
:data:`MAX_MEDIA_BYTES` a block; what is cut is said in a note at the end of the result, which
the model reads and the user sees with the call.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from app.core.state.message_block import ContentBlock, TextBlock
from app.tools.mcp._stdio import megabytes
from app.tools.web import MAX_TEXT_CHARS

__all__ = ["MAX_MEDIA_BYTES", "MAX_RESULT_CHARS", "capped", "capped_json"]

MAX_RESULT_CHARS = MAX_TEXT_CHARS
"""The most text of one result that is kept."""

MAX_MEDIA_BYTES = 5_000_000
"""The largest image, audio or document of one result that is kept."""


def _media_size(block: ContentBlock) -> int:
    media = getattr(block, "media", None)
    data = getattr(media, "data_base64", None)
    return len(data) * 3 // 4 if isinstance(data, str) else 0


def _without_big_media(blocks: list[ContentBlock]) -> tuple[list[ContentBlock], list[str]]:
    kept: list[ContentBlock] = []
    notes: list[str] = []
    for block in blocks:
        if (size := _media_size(block)) > MAX_MEDIA_BYTES:
            notes.append(
                f"[... the {block.type} of {megabytes(size)} was left out: at most "
                f"{megabytes(MAX_MEDIA_BYTES)} is kept]"
            )
        else:
            kept.append(block)
    return kept, notes


def capped(
    blocks: list[ContentBlock],
    clean: Callable[[list[ContentBlock]], list[ContentBlock]] = lambda blocks: blocks,
) -> list[ContentBlock]:
    """``blocks`` within the caps, with a note saying what was cut.

    ``clean`` (the redaction) sees the blocks after media too big to keep are dropped and
    before the text is cut, so that it never works on what is thrown away nor misses a
    secret cut in two.
    """
    blocks, notes = _without_big_media(blocks)
    kept: list[ContentBlock] = []
    room = MAX_RESULT_CHARS
    text_chars = 0
    for block in clean(blocks):
        if not isinstance(block, TextBlock):
            kept.append(block)
            continue
        text_chars += len(block.text)
        if room <= 0:
            continue
        if len(block.text) > room:
            block = TextBlock(text=block.text[:room])
        room -= len(block.text)
        kept.append(block)
    if text_chars > MAX_RESULT_CHARS:
        notes.insert(
            0,
            f"[... the result was cut at {MAX_RESULT_CHARS} characters; the server sent "
            f"{text_chars}]",
        )
    if notes:
        kept.append(TextBlock(text="\n".join(notes)))
    return kept


def capped_json(value: Any) -> Any:
    """A structured result as it is when small, else its JSON text cut with a note."""
    text = json.dumps(value, ensure_ascii=False)
    if len(text) <= MAX_RESULT_CHARS:
        return value
    return capped([TextBlock(text=text)])
