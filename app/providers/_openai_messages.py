"""Map Parley messages to Chat Completions messages (the OpenAI-compatible wire format).

What maps where:

- text, extracted document text, JSON data, errors, citations -> text parts;
- images -> ``image_url`` parts (an http(s) URL or a ``data:`` URL), when the model takes images;
- PDFs without extracted text -> ``file`` parts, when the model takes documents;
- audio (wav/mp3) -> ``input_audio`` parts, when the model takes audio;
- media the model cannot take -> a text part saying what was attached and left out;
- tool calls -> the assistant's ``tool_calls``; tool results -> ``tool`` messages, and media a
  tool returned -> a following user message (tool messages can only hold text);
- reasoning of earlier assistant turns is not sent back: Chat Completions has no input for it.

Anything else raises :class:`UnsupportedContent` naming the block.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from app.core.errors import UnsupportedContent
from app.core.models.fit import stand_in
from app.core.models.protocol import ToolSpec
from app.core.state.message import Message
from app.core.state.message_block import (
    AudioBlock,
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
    data_url,
    media_base64,
    mime_of,
    text_of,
    tool_output_text,
    unsupported,
)

_AUDIO_FORMATS = {"audio/wav": "wav", "audio/x-wav": "wav", "audio/mpeg": "mp3", "audio/mp3": "mp3"}


def function_tools(tools: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    """Tools as Chat Completions ``function`` definitions (Ollama and chat templates take them)."""
    return [
        {
            "type": "function",
            "function": {"name": t.name, "description": t.description, "parameters": t.parameters},
        }
        for t in tools
    ]


class OpenAIMapper:
    """Converts messages for one model, knowing which input kinds it takes natively."""

    def __init__(self, model: str, kinds: frozenset[str], loader: MediaLoader | None) -> None:
        self.model = model
        self.kinds = kinds
        self.loader = loader

    def messages(self, messages: Sequence[Message]) -> list[dict[str, Any]]:
        """Map a conversation to Chat Completions ``messages``."""
        out: list[dict[str, Any]] = []
        # Media that tools returned waits until the run of tool messages ends: a user message
        # between the results of parallel calls is rejected.
        attachments: list[dict[str, Any]] = []
        for msg in messages:
            if msg.role == "tool":
                out.extend(self._tool(msg, attachments))
                continue
            _flush(out, attachments)
            if msg.role == "assistant":
                out.append(self._assistant(msg))
            else:
                parts = [self.part(b) for b in msg.content]
                out.append({"role": msg.role, "content": _compact(parts)})
        _flush(out, attachments)
        return out

    def part(self, block: ContentBlock) -> dict[str, Any]:
        """Map one block of a user or system message to a content part."""
        if isinstance(block, TextBlock | ReasoningBlock):
            return {"type": "text", "text": block.text}
        text = text_of(block)
        if text is not None:
            return {"type": "text", "text": text}
        if isinstance(block, ToolResultBlock):
            return {"type": "text", "text": tool_output_text(block)}
        if isinstance(block, ImageBlock) and "image" in self.kinds:
            url = data_url(block.media, self.loader, self.model, "image/png")
            return {"type": "image_url", "image_url": {"url": url}}
        if isinstance(block, DocumentBlock) and "document" in self.kinds:
            # A file part holds base64 data (never a link) and is read as a PDF.
            if mime_of(block.media, "application/pdf") != "application/pdf":
                return _text(stand_in(block, self.model, f"{self.model} reads only PDFs"))
            data = media_base64(block.media, self.loader, self.model)
            url = f"data:application/pdf;base64,{data}"
            name = block.media.filename or block.title or "document.pdf"
            return {"type": "file", "file": {"file_data": url, "filename": name}}
        if isinstance(block, AudioBlock) and "audio" in self.kinds:
            fmt = _AUDIO_FORMATS.get(mime_of(block.media, "audio/wav"))
            if fmt is None:
                why = f"{self.model} takes only WAV and MP3 audio"
                return _text(stand_in(block, self.model, why))
            data = media_base64(block.media, self.loader, self.model)
            return {"type": "input_audio", "input_audio": {"data": data, "format": fmt}}
        if block.type in MEDIA_TYPES:
            return _text(stand_in(block, self.model))
        raise unsupported(self.model, block)

    def _assistant(self, msg: Message) -> dict[str, Any]:
        texts: list[str] = []
        calls: list[dict[str, Any]] = []
        for block in msg.content:
            if isinstance(block, TextBlock):
                texts.append(block.text)
            elif isinstance(block, ToolCallBlock):
                # ``partial_args`` is text that never parsed: servers that read the history
                # (vLLM, llama.cpp) reject it, so only what did parse goes back.
                args = json.dumps(block.args, ensure_ascii=False)
                calls.append(
                    {
                        "id": block.id,
                        "type": "function",
                        "function": {"name": block.name, "arguments": args},
                    }
                )
            elif isinstance(block, ReasoningBlock):
                continue
            elif (text := text_of(block)) is not None:
                texts.append(text)
            else:
                raise UnsupportedContent(
                    f"An earlier assistant reply holds a {block.type} block, which {self.model} "
                    "cannot take back as its own output. Remove it from the conversation."
                )
        # Always a string: llama-cpp-python's server rejects ``null`` and chat templates read
        # ``message['content']``, so a reply with only tool calls (or nothing) has ``""``.
        out: dict[str, Any] = {"role": "assistant", "content": "".join(texts)}
        if calls:
            out["tool_calls"] = calls
        return out

    def _tool(self, msg: Message, extra: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The ``tool`` messages of ``msg``; its other blocks are added to ``extra``."""
        out: list[dict[str, Any]] = []
        for block in msg.content:
            if isinstance(block, ToolResultBlock):
                out.append(
                    {
                        "role": "tool",
                        "tool_call_id": block.call_id,
                        "content": tool_output_text(block),
                    }
                )
            else:
                extra.append(self.part(block))
        return out


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def _flush(out: list[dict[str, Any]], attachments: list[dict[str, Any]]) -> None:
    """Send the media tools returned as one user message after their results."""
    if attachments:
        intro = {"type": "text", "text": "Attachments returned by the tool calls above:"}
        out.append({"role": "user", "content": [intro, *attachments]})
        attachments.clear()


def _compact(parts: list[dict[str, Any]]) -> str | list[dict[str, Any]]:
    """Plain text when every part is text (the form every server accepts), else the parts."""
    if all(p["type"] == "text" for p in parts):
        return "\n\n".join(p["text"] for p in parts)
    return parts
