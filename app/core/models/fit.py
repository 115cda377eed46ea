"""What a model is sent of the blocks it cannot take, and the note that tells the user.

A text-only model sent an image would reject the request; instead the adapters put a short
text in its place (:func:`stand_in`), so the model knows something was attached, and the
message carries a note (:func:`left_out`) saying what that model did not see.
"""

from __future__ import annotations

from collections.abc import Iterable

from app.core.models.protocol import ModelInfo
from app.core.state.message_block import (
    AudioBlock,
    ContentBlock,
    DataBlock,
    DocumentBlock,
    ImageBlock,
    VideoBlock,
)

__all__ = ["left_out", "needs_stand_in", "stand_in"]

_KIND_WORDS = {
    "image": ("an image", "images"),
    "audio": ("a sound clip", "audio"),
    "video": ("a video", "video"),
    "document": ("a document", "documents"),
    "data": ("a file", "files of this type"),
}


def _name(block: ContentBlock) -> str:
    media = getattr(block, "media", None)
    name = getattr(media, "filename", None) or getattr(block, "title", None)
    return str(name) if name else ""


def needs_stand_in(block: ContentBlock, kinds: frozenset[str]) -> bool:
    """Whether a model taking ``kinds`` natively gets ``block`` only as a stand-in text.

    Documents with extracted text and audio with a transcript reach every model as text.
    """
    if isinstance(block, DocumentBlock):
        return block.text is None and "document" not in kinds
    if isinstance(block, AudioBlock):
        return block.transcript is None and "audio" not in kinds
    if isinstance(block, ImageBlock | VideoBlock):
        return block.type not in kinds
    if isinstance(block, DataBlock):
        return block.data is None and not block.mime_type.startswith("text/")
    return False


def stand_in(block: ContentBlock, model: str, why: str = "") -> str:
    """The text a model gets in place of ``block``: what was attached, and that it cannot see
    it. An audio clip with a transcript stands in as its transcript."""
    if isinstance(block, AudioBlock) and block.transcript:
        return f"[Transcript of {_name(block) or 'a sound clip'}]\n{block.transcript}"
    one, many = _KIND_WORDS.get(block.type, ("an attachment", f"{block.type} blocks"))
    name = _name(block)
    what = f"{one} ({name})" if name else one
    reason = why or f"{model} cannot take {many} as input"
    return f"[The user attached {what} here, but it is not shown: {reason}.]"


def left_out(blocks: Iterable[ContentBlock], info: ModelInfo) -> list[str]:
    """One note per block ``info``'s model will not see, e.g. ``"photo.png was left out:
    local cannot take images."``."""
    notes = []
    for block in blocks:
        if needs_stand_in(block, info.input_kinds):
            one, many = _KIND_WORDS.get(block.type, ("an attachment", f"{block.type} blocks"))
            label = _name(block) or one[0].upper() + one[1:]
            notes.append(f"{label} was left out: {info.name} cannot take {many}.")
    return notes
