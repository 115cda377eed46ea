"""What an extractor hands back: the bytes to store and how to build the block from them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the blocks are built only when a file is attached
    from app.core.state.message_block import ContentBlock, MediaRef

MAIN = "main"
"""The role of the blob the block's ``media`` points at."""


@dataclass(frozen=True)
class Blob:
    """Bytes to put in the media store, with their MIME type and the file name to show."""

    data: bytes
    mime_type: str
    filename: str | None = None


@dataclass
class Draft:
    """A block waiting for its media to be stored.

    ``blobs`` maps a role (``"main"``, ``"thumbnail"``, ``"original"``, ``"preview"``) to bytes;
    ``build`` receives the stored :class:`MediaRef` of each role and returns the block. Nothing
    is stored until the whole file has been read and checked, so a bad file adds nothing.
    ``frame_at`` is set for a video: the time (in seconds) its thumbnail should be taken at,
    by the frame source the ingest was given (decoding is the window's, see ``VideoFrames``).
    ``text`` is a document's text (a PDF's, a Word document's, a text file's; ``None`` for
    anything else), for a reader that wants the text without building the block: a knowledge
    folder's (:func:`app.media.ingest.document_text`).
    """

    blobs: dict[str, Blob]
    build: Callable[[dict[str, MediaRef]], ContentBlock]
    notes: list[str] = field(default_factory=list)
    frame_at: float | None = None
    text: str | None = None
