"""What an imported thread keeps of its citations: only web addresses.

A citation Parley makes for a knowledge passage points at a file on this computer
(``file://…#page=N``), and clicking its chip opens that file. In an export from anywhere the
address is the file's own choice: a chip labelled "kettle-manual.pdf, page 3" could open a
script in Downloads. An import keeps a citation whose address is ``http`` or ``https``; any
other address (a file, a path, another scheme) is removed, while the citation's label and
passage stay (its chip shows as before and opens nothing), and a note on its message says
which address was removed and why.

An error's code says which remedy its row offers, and for a refused key which keyring entry
"Set API key…" asks for: an imported error that names an entry keeps its text but offers no
remedy, so a file cannot choose the key the window asks the person to paste.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from app.core.quoting import quoted
from app.core.state import (
    AgentState,
    AnnotationBlock,
    AnnotationRef,
    ContentBlock,
    ErrorBlock,
    Message,
    MessageList,
    TextBlock,
)
from app.core.state.message import NOTES_KEY

__all__ = ["is_web_address", "keep_web_citations"]


def is_web_address(url: str) -> bool:
    """Whether ``url`` is an ``http``/``https`` address with a host (nothing on this
    computer)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    printable = all(c.isprintable() and not c.isspace() for c in url)
    return printable and parts.scheme.lower() in ("http", "https") and bool(parts.hostname)


def _note(ref: AnnotationRef) -> str:
    url = ref.url or ""
    try:
        scheme = urlsplit(url).scheme.lower()
    except ValueError:
        scheme = ""
    if scheme in ("", "file") or len(scheme) == 1:
        where = f"pointed at a file on the computer it was exported from ({quoted(url)})"
    else:
        where = f"was not a web address ({quoted(url)})"
    label = f"The source {quoted(ref.title)}" if ref.title else "A source"
    return (
        f"{label} is kept as text and opens nothing: its address {where}; an imported thread "
        "keeps only web addresses."
    )


def _vetted(ref: AnnotationRef, notes: list[str]) -> AnnotationRef:
    if ref.url is None or is_web_address(ref.url):
        return ref
    notes.append(_note(ref))
    return ref.model_copy(update={"url": None})


def _keep_block(block: ContentBlock, notes: list[str]) -> ContentBlock:
    if isinstance(block, TextBlock) and block.annotations:
        before = len(notes)
        kept = [_vetted(ref, notes) for ref in block.annotations]
        return block.model_copy(update={"annotations": kept}) if len(notes) > before else block
    if isinstance(block, ErrorBlock) and block.code and ":" in block.code:
        return block.model_copy(update={"code": None})
    if isinstance(block, AnnotationBlock):
        before = len(notes)
        ref = _vetted(block.annotation, notes)
        return block.model_copy(update={"annotation": ref}) if len(notes) > before else block
    return block


def _keep_message(message: Message) -> tuple[Message, list[str]]:
    notes: list[str] = []
    content = [_keep_block(block, notes) for block in message.content]
    if not notes:
        return message, notes
    shown = message.metadata.get(NOTES_KEY)
    metadata = {
        **message.metadata,
        NOTES_KEY: [*(shown if isinstance(shown, list) else ()), *notes],
    }
    return message.model_copy(update={"content": content, "metadata": metadata}), notes


def keep_web_citations(state: AgentState) -> list[str]:
    """Remove from ``state`` (in place) every citation address that is not a web address,
    keeping the citation's label and passage; return one note per address removed, each
    also kept on its message."""
    notes: list[str] = []
    context = []
    for message in state.context:
        kept, removed = _keep_message(message)
        context.append(kept)
        notes += removed
    if notes:
        state.context = MessageList(context)
    return notes
