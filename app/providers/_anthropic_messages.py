"""Map Parley messages to the Anthropic Messages API.

- system messages -> the top-level ``system`` text (in order);
- text, extracted document text, JSON data, errors, citations -> ``text`` blocks;
- images -> ``image`` blocks (base64 or URL); PDFs -> ``document`` blocks (base64 or URL), and
  documents with extracted text -> plain-text ``document`` blocks;
- reasoning -> ``thinking`` blocks when signed (``redacted_thinking`` when redacted); unsigned
  reasoning cannot be verified by the API, so it is not sent back;
- tool calls -> ``tool_use``; tool results -> ``tool_result`` in a user turn, with any images a
  tool returned inside the last result;
- audio and video -> a text block saying what was attached and left out.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from app.core.models.fit import stand_in
from app.core.state.block_renderers import BlockRenderers
from app.core.state.message import Message
from app.core.state.message_block import (
    ContentBlock,
    DocumentBlock,
    ImageBlock,
    MediaRef,
    ReasoningBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from app.providers._content import (
    MediaLoader,
    is_remote,
    media_base64,
    mime_of,
    text_of,
    text_or_stand_in,
    tool_output_text,
    unsupported,
)

REDACTED = "redacted:"
"""Prefix of a ``ReasoningBlock.signature`` that holds a redacted thinking block's data."""


class AnthropicMapper:
    """Converts messages for one Claude model."""

    def __init__(self, model: str, loader: MediaLoader | None) -> None:
        self.model = model
        self.loader = loader

    def convert(self, messages: Sequence[Message]) -> tuple[str, list[dict[str, Any]]]:
        """Return ``(system, messages)`` for ``messages.create``."""
        system: list[str] = []
        turns: list[dict[str, Any]] = []
        for msg in messages:
            turn = _Turn(self, msg.role)
            for block in msg.content:
                ANTHROPIC_REQUEST.render(block, turn)
            if msg.role == "system":
                system.append("\n\n".join(turn.system))
                continue
            role = "assistant" if msg.role == "assistant" else "user"
            blocks = turn.out
            if role == "user":  # the API rejects a text block without visible text
                blocks = [b for b in blocks if b.get("type") != "text" or b["text"].strip()]
            if not blocks:
                continue
            if turns and turns[-1]["role"] == role:
                turns[-1]["content"].extend(blocks)
            else:
                turns.append({"role": role, "content": blocks})
        return "\n\n".join(s for s in system if s), turns

    def document(self, block: DocumentBlock) -> dict[str, Any]:
        """A document: its extracted text, else the PDF (anything else stands in as text)."""
        if block.text is not None:
            source = {"type": "text", "media_type": "text/plain", "data": block.text}
            return _doc(source, block)
        if mime_of(block.media, "application/pdf") != "application/pdf":
            why = f"{self.model} reads only PDFs and text"
            return _text(stand_in(block, self.model, why))
        return _doc(self.source(block.media, "application/pdf"), block)

    def source(self, media: MediaRef, default: str) -> dict[str, Any]:
        """Where the API reads an image's or a PDF's bytes: its link, or the bytes inline."""
        if is_remote(media):
            return {"type": "url", "url": media.url}
        data = media_base64(media, self.loader, self.model)
        return {"type": "base64", "media_type": mime_of(media, default), "data": data}


class _Turn:
    """One message being converted: the system texts or API blocks it makes so far."""

    def __init__(self, mapper: AnthropicMapper, role: str) -> None:
        self.mapper = mapper
        self.role = role
        self.system: list[str] = []
        self.out: list[dict[str, Any]] = []
        self.last_result: dict[str, Any] | None = None

    def system_text(self, block: ContentBlock) -> None:
        """A block of a system message, which can only hold text."""
        text = text_of(block)
        if text is None:
            raise unsupported(self.mapper.model, block, "A system prompt can only hold text.")
        self.system.append(text)

    def place(self, item: dict[str, Any]) -> None:
        """Add ``item``; what a tool message holds besides its results goes inside its last
        result (the API takes images a tool returned there)."""
        if self.role == "tool" and self.last_result is not None:
            self.last_result["content"].append(item)
        else:
            self.out.append(item)


ANTHROPIC_REQUEST: BlockRenderers[_Turn, None] = BlockRenderers("ANTHROPIC_REQUEST")
"""Each block type as the Messages API takes it, by the role of its message."""


@ANTHROPIC_REQUEST.register("image")
def _image(block: ImageBlock, turn: _Turn) -> None:
    if turn.role == "system":
        turn.system_text(block)
    else:
        turn.place({"type": "image", "source": turn.mapper.source(block.media, "image/png")})


@ANTHROPIC_REQUEST.register("document")
def _document(block: DocumentBlock, turn: _Turn) -> None:
    if turn.role == "system":
        turn.system_text(block)
    else:
        turn.place(turn.mapper.document(block))


@ANTHROPIC_REQUEST.register("audio", "video", "data", "error", "annotation")
def _as_text(block: ContentBlock, turn: _Turn) -> None:
    if turn.role == "system":
        turn.system_text(block)
    else:
        turn.place(_text(text_or_stand_in(block, turn.mapper.model)))


@ANTHROPIC_REQUEST.register("text")
def _text_block(block: TextBlock, turn: _Turn) -> None:
    if turn.role == "system":
        turn.system.append(block.text)
    elif block.text.strip():  # the API rejects text blocks without visible text
        turn.place(_text(block.text))


@ANTHROPIC_REQUEST.register("reasoning")
def _reasoning(block: ReasoningBlock, turn: _Turn) -> None:
    if turn.role == "system":
        turn.system_text(block)
    elif turn.role != "assistant":
        turn.out.append(_text(block.text))
    elif (sig := block.signature or "").startswith(REDACTED):
        turn.out.append({"type": "redacted_thinking", "data": sig[len(REDACTED) :]})
    elif sig:
        turn.out.append({"type": "thinking", "thinking": block.text, "signature": sig})


@ANTHROPIC_REQUEST.register("tool_call")
def _tool_call(block: ToolCallBlock, turn: _Turn) -> None:
    if turn.role == "assistant":
        turn.out.append(
            {"type": "tool_use", "id": block.id, "name": block.name, "input": block.args}
        )
    elif turn.role == "system":
        turn.system_text(block)
    else:
        raise unsupported(turn.mapper.model, block)


@ANTHROPIC_REQUEST.register("tool_result")
def _tool_result(block: ToolResultBlock, turn: _Turn) -> None:
    if turn.role == "system":
        turn.system_text(block)
    elif turn.role == "assistant":
        raise unsupported(turn.mapper.model, block)
    else:
        text = tool_output_text(block)
        turn.last_result = {
            "type": "tool_result",
            "tool_use_id": block.call_id,
            "content": [_text(text)] if text.strip() else [],
            "is_error": block.status == "error",
        }
        turn.out.append(turn.last_result)


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def _doc(source: dict[str, Any], block: DocumentBlock) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "document", "source": source}
    title = block.title or block.media.filename
    if title:
        out["title"] = title
    return out
