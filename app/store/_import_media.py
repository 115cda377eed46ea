"""What an imported thread keeps of its media: only the bytes the export itself carries.

An export is a file from anywhere. A media reference in it that points at this computer (a
``file://`` URL, a path, any other link) or at stored media the export does not carry (another
thread's attachment, named by its hash) would make Parley read or send bytes the user never
chose. Such a reference is dropped, and a note on its message (and in the import's result) says
what was left out and why.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Set
from typing import Any
from urllib.parse import urlsplit

from app.core.quoting import quoted
from app.core.state import AgentState, ContentBlock, DataBlock, MediaRef, Message, MessageList
from app.core.state.message import NOTES_KEY

__all__ = ["MEDIA_FIELDS", "keep_carried_media"]

MEDIA_FIELDS = ("media", "thumbnail", "original", "preview")
"""The fields of a content block that hold a :class:`MediaRef`."""

_KINDS = {
    "image": "An image",
    "audio": "An audio clip",
    "video": "A video",
    "document": "A document",
    "data": "An attachment",
}
_PARTS = {"media": "media", "thumbnail": "thumbnail", "original": "original file"}


def _decoded(text: str) -> bytes | None:
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return None


def _inline(ref: MediaRef, raw: bytes | None) -> tuple[MediaRef | None, str | None]:
    """An inline reference, kept with its hash made true to its bytes."""
    if raw is None:
        return None, "its inline data is not valid base64"
    sha = hashlib.sha256(raw).hexdigest()
    if ref.sha256 is None or ref.sha256.lower() == sha:
        return ref, None
    return ref.model_copy(update={"sha256": sha}), None


def _link_problem(url: str) -> str:
    try:
        scheme = urlsplit(url).scheme.lower()
    except ValueError:  # e.g. a bracketed host that is not an address
        scheme = ""
    # no scheme is a path (absolute, relative or ~); one letter is a drive (C:\...)
    if scheme in ("", "file") or len(scheme) == 1:
        where = f"points at a file on this computer ({quoted(url)})"
    else:
        where = f"links to {quoted(url)}"
    return f"it {where}; an import keeps only media it carries itself"


def _vetted(ref: MediaRef, carried: Set[str]) -> tuple[MediaRef | None, str | None]:
    """The reference to keep (``None``: drop it) and why it was dropped or changed."""
    if ref.kind == "file_id":
        key = (ref.file_id or "").lower()
        if key not in carried:
            return None, f"it names stored media ({quoted(key)}) the export does not carry"
        if ref.sha256 is not None and ref.sha256.lower() != key:
            return ref.model_copy(update={"sha256": key}), None
        return ref, None
    if ref.kind == "data":
        return _inline(ref, _decoded(ref.data_base64 or ""))
    url = ref.url or ""
    if url.startswith("data:") and ";base64," in url:
        return _inline(ref, _decoded(url.split(";base64,", 1)[1]))
    return None, _link_problem(url)


def _label(block: ContentBlock, ref: MediaRef | None) -> str:
    kind = _KINDS.get(block.type, "An attachment")
    name = ref.filename if ref is not None else None
    return f"{kind} ({quoted(name)})" if name else kind


def _keep_block(block: ContentBlock, carried: Set[str]) -> tuple[ContentBlock | None, list[str]]:
    """The block with only carried media (``None``: it must go), and a note per drop."""
    fields: dict[str, Any] = block.__dict__
    main = fields.get("media")
    label = _label(block, main)
    changes: dict[str, MediaRef | None] = {}
    notes: list[str] = []
    for name in MEDIA_FIELDS:
        ref = fields.get(name)
        if not isinstance(ref, MediaRef):
            continue
        kept, why = _vetted(ref, carried)
        if kept is ref:
            continue
        changes[name] = kept
        if kept is not None:
            continue
        needed = name == "media" and not (
            isinstance(block, DataBlock) and (block.data_base64 or block.data is not None)
        )
        if needed:
            return None, [f"{label} was left out of this thread on import: {why}."]
        part = _PARTS.get(name, name)
        notes.append(f"{label}'s {part} was left out of this thread on import: {why}.")
    return (block.model_copy(update=changes) if changes else block), notes


def _keep_message(message: Message, carried: Set[str]) -> tuple[Message, list[str]]:
    content: list[ContentBlock] = []
    notes: list[str] = []
    for block in message.content:
        kept, dropped = _keep_block(block, carried)
        notes += dropped
        if kept is not None:
            content.append(kept)
    if not notes:
        return message, notes
    shown = message.metadata.get(NOTES_KEY)
    metadata = {
        **message.metadata,
        NOTES_KEY: [*(shown if isinstance(shown, list) else ()), *notes],
    }
    return message.model_copy(update={"content": content, "metadata": metadata}), notes


def keep_carried_media(state: AgentState, carried: Set[str]) -> list[str]:
    """Drop from ``state`` (in place) every media reference whose bytes are not among
    ``carried`` (the SHA-256 hashes of the export's own media) or inline; return one note per
    reference dropped, each also kept on its message."""
    notes: list[str] = []
    context = []
    for message in state.context:
        kept, dropped = _keep_message(message, carried)
        context.append(kept)
        notes += dropped
    if notes:
        state.context = MessageList(context)
    return notes
