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
from app.core.state.message import Message
from app.core.state.message_block import (
    ContentBlock,
    DocumentBlock,
    ImageBlock,
    ReasoningBlock,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from app.providers._content import (
    MEDIA_TYPES,
    MediaLoader,
    is_remote,
    media_base64,
    mime_of,
    text_of,
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
            if msg.role == "system":
                system.append("\n\n".join(self._text_only(msg)))
                continue
            role = "assistant" if msg.role == "assistant" else "user"
            blocks = self._assistant(msg) if role == "assistant" else self._user(msg)
            if not blocks:
                continue
            if turns and turns[-1]["role"] == role:
                turns[-1]["content"].extend(blocks)
            else:
                turns.append({"role": role, "content": blocks})
        return "\n\n".join(s for s in system if s), turns

    def _text_only(self, msg: Message) -> list[str]:
        out = []
        for block in msg.content:
            text = block.text if isinstance(block, TextBlock) else text_of(block)
            if text is None:
                raise unsupported(self.model, block, "A system prompt can only hold text.")
            out.append(text)
        return out

    def media(self, block: ContentBlock) -> dict[str, Any]:
        """An image or document block; text-like blocks become ``text`` blocks."""
        if isinstance(block, TextBlock):
            return {"type": "text", "text": block.text}
        if isinstance(block, ImageBlock):
            return {"type": "image", "source": self._source(block, "image/png")}
        if isinstance(block, DocumentBlock) and block.text is not None:
            source = {"type": "text", "media_type": "text/plain", "data": block.text}
            return _doc(source, block)
        if isinstance(block, DocumentBlock):
            if mime_of(block.media, "application/pdf") != "application/pdf":
                why = f"{self.model} reads only PDFs and text"
                return {"type": "text", "text": stand_in(block, self.model, why)}
            return _doc(self._source(block, "application/pdf"), block)
        text = text_of(block)
        if text is None and block.type in MEDIA_TYPES:
            text = stand_in(block, self.model)
        if text is None:
            raise unsupported(self.model, block)
        return {"type": "text", "text": text}

    def _source(self, block: ImageBlock | DocumentBlock, default: str) -> dict[str, Any]:
        if is_remote(block.media):
            return {"type": "url", "url": block.media.url}
        data = media_base64(block.media, self.loader, self.model)
        return {"type": "base64", "media_type": mime_of(block.media, default), "data": data}

    def _user(self, msg: Message) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        last_result: dict[str, Any] | None = None
        for block in msg.content:
            if isinstance(block, ToolResultBlock):
                text = tool_output_text(block)
                last_result = {
                    "type": "tool_result",
                    "tool_use_id": block.call_id,
                    "content": [{"type": "text", "text": text}] if text.strip() else [],
                    "is_error": block.status == "error",
                }
                out.append(last_result)
            elif isinstance(block, ReasoningBlock):
                out.append({"type": "text", "text": block.text})
            elif isinstance(block, TextBlock) and not block.text.strip():
                continue
            elif msg.role == "tool" and last_result is not None:
                last_result["content"].append(self.media(block))
            else:
                out.append(self.media(block))
        # The API rejects the request for a text block without visible text.
        return [b for b in out if b.get("type") != "text" or b["text"].strip()]

    def _assistant(self, msg: Message) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for block in msg.content:
            if isinstance(block, ReasoningBlock):
                sig = block.signature or ""
                if sig.startswith(REDACTED):
                    out.append({"type": "redacted_thinking", "data": sig[len(REDACTED) :]})
                elif sig:
                    out.append({"type": "thinking", "thinking": block.text, "signature": sig})
            elif isinstance(block, ToolCallBlock):
                out.append(
                    {"type": "tool_use", "id": block.id, "name": block.name, "input": block.args}
                )
            elif isinstance(block, TextBlock):
                if block.text.strip():  # the API rejects text blocks without visible text
                    out.append({"type": "text", "text": block.text})
            else:
                out.append(self.media(block))
        return out


def _doc(source: dict[str, Any], block: DocumentBlock) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "document", "source": source}
    title = block.title or block.media.filename
    if title:
        out["title"] = title
    return out
