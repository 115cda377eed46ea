"""Sending a message with attached files: ingest them, note what the model cannot see, send.

The window and ``parley chat --attach`` share this path, so a file attaches the same way in
both and every file that cannot be attached is reported by name with its reason.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from app.core.models.fit import left_out
from app.core.models.protocol import ModelInfo
from app.core.state import ContentBlock, Message, TextBlock
from app.core.state.message import NOTES_KEY
from app.media import IngestLimits, Ingestor, IngestProgress, Source, StoreMedia, VideoFrames

__all__ = ["NOTES_KEY", "Attachments", "attach", "compose"]


@dataclass
class Attachments:
    """What came of a set of files: the blocks that attached, a line for each file that did
    not, and notes worth showing about those that did."""

    blocks: list[ContentBlock] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


async def attach(
    store_media: StoreMedia,
    sources: Sequence[Source | os.PathLike[str]],
    *,
    limits: IngestLimits | None = None,
    on_progress: Callable[[IngestProgress], None] | None = None,
    frames: VideoFrames | None = None,
) -> Attachments:
    """Ingest ``sources`` into the media store; one block or one problem line per file
    (videos' thumbnails from ``frames``, when given)."""
    out = Attachments()
    ingestor = Ingestor(store_media, limits, frames)
    for result in await ingestor.ingest_all(sources, on_progress):
        if result.block is not None:
            out.blocks.append(result.block)
            out.notes.extend(result.notes)
        else:
            out.problems.append(result.message)
    return out


def compose(text: str, blocks: Sequence[ContentBlock], info: ModelInfo | None) -> Message:
    """The user's message: the text, then the attachments, with a note for each attachment
    the model ``info`` describes will not see."""
    content: list[ContentBlock] = [TextBlock(text=text)] if text else []
    content.extend(blocks)
    message = Message(role="user", content=content)
    notes = left_out(blocks, info) if info is not None else []
    if notes:
        message.metadata[NOTES_KEY] = notes
    return message
