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
from collections.abc import Callable, Sequence
from typing import Any

from app.core.errors import UnsupportedContent
from app.core.models.fit import stand_in
from app.core.models.protocol import ToolSpec
from app.core.state.block_renderers import BlockRenderers
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
    MediaLoader,
    data_url,
    media_base64,
    mime_of,
    text_of,
    text_or_stand_in,
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
                out.extend(self._turn(msg, attachments).results)
                continue
            _flush(out, attachments)
            turn = self._turn(msg, [])
            if msg.role == "assistant":
                out.append(turn.assistant())
            else:
                out.append({"role": msg.role, "content": _compact(turn.parts)})
        _flush(out, attachments)
        return out

    def _turn(self, msg: Message, parts: list[dict[str, Any]]) -> _Turn:
        turn = _Turn(self, msg.role, parts)
        for block in msg.content:
            OPENAI_REQUEST.render(block, turn)
        return turn

    def part(self, block: ContentBlock) -> dict[str, Any]:
        """Map one block of a user or system message to a content part."""
        turn = _Turn(self, "user", [])
        OPENAI_REQUEST.render(block, turn)
        return turn.parts[0]

    def document(self, block: DocumentBlock) -> dict[str, Any]:
        """A PDF as a ``file`` part (base64 data, never a link); any other kind stands in."""
        if mime_of(block.media, "application/pdf") != "application/pdf":
            return _text(stand_in(block, self.model, f"{self.model} reads only PDFs"))
        data = media_base64(block.media, self.loader, self.model)
        url = f"data:application/pdf;base64,{data}"
        name = block.media.filename or block.title or "document.pdf"
        return {"type": "file", "file": {"file_data": url, "filename": name}}

    def audio(self, block: AudioBlock) -> dict[str, Any]:
        """A WAV or MP3 clip as an ``input_audio`` part; any other format stands in."""
        fmt = _AUDIO_FORMATS.get(mime_of(block.media, "audio/wav"))
        if fmt is None:
            why = f"{self.model} takes only WAV and MP3 audio"
            return _text(stand_in(block, self.model, why))
        data = media_base64(block.media, self.loader, self.model)
        return {"type": "input_audio", "input_audio": {"data": data, "format": fmt}}


class _Turn:
    """One message being converted: its content parts (for a tool message, the media it
    returned, sent after the run of tool messages), its texts and tool calls as a reply, and
    its tool results."""

    def __init__(self, mapper: OpenAIMapper, role: str, parts: list[dict[str, Any]]) -> None:
        self.mapper = mapper
        self.role = role
        self.parts = parts
        self.texts: list[str] = []
        self.calls: list[dict[str, Any]] = []
        self.results: list[dict[str, Any]] = []

    @property
    def replying(self) -> bool:
        """Whether this is an assistant's reply (texts and calls, no parts)."""
        return self.role == "assistant"

    def own_text(self, block: ContentBlock) -> None:
        """A block of an earlier reply, which goes back only as text."""
        text = text_of(block)
        if text is None:
            raise UnsupportedContent(
                f"An earlier assistant reply holds a {block.type} block, which "
                f"{self.mapper.model} cannot take back as its own output. Remove it from the "
                "conversation."
            )
        self.texts.append(text)

    def media(self, block: ContentBlock, kind: str, part: Callable[[], dict[str, Any]]) -> None:
        """A media block: ``part()`` when the model takes ``kind``, else its text or a
        stand-in."""
        if self.replying:
            self.own_text(block)
        elif kind in self.mapper.kinds and text_of(block) is None:
            self.parts.append(part())
        else:
            self.parts.append(_text(text_or_stand_in(block, self.mapper.model)))

    def assistant(self) -> dict[str, Any]:
        """The reply as an assistant message."""
        # Always a string: llama-cpp-python's server rejects ``null`` and chat templates read
        # ``message['content']``, so a reply with only tool calls (or nothing) has ``""``.
        out: dict[str, Any] = {"role": "assistant", "content": "".join(self.texts)}
        if self.calls:
            out["tool_calls"] = self.calls
        return out


OPENAI_REQUEST: BlockRenderers[_Turn, None] = BlockRenderers("OPENAI_REQUEST")
"""Each block type as Chat Completions takes it, by the role of its message."""


@OPENAI_REQUEST.register("text", "reasoning")
def _text_block(block: TextBlock | ReasoningBlock, turn: _Turn) -> None:
    if not turn.replying:
        turn.parts.append(_text(block.text))
    elif block.type == "text":
        turn.texts.append(block.text)


@OPENAI_REQUEST.register("image")
def _image(block: ImageBlock, turn: _Turn) -> None:
    mapper = turn.mapper

    def part() -> dict[str, Any]:
        url = data_url(block.media, mapper.loader, mapper.model, "image/png")
        return {"type": "image_url", "image_url": {"url": url}}

    turn.media(block, "image", part)


@OPENAI_REQUEST.register("document")
def _document(block: DocumentBlock, turn: _Turn) -> None:
    turn.media(block, "document", lambda: turn.mapper.document(block))


@OPENAI_REQUEST.register("audio")
def _audio(block: AudioBlock, turn: _Turn) -> None:
    turn.media(block, "audio", lambda: turn.mapper.audio(block))


@OPENAI_REQUEST.register("video", "data", "error", "annotation")
def _as_text(block: ContentBlock, turn: _Turn) -> None:
    if turn.replying:
        turn.own_text(block)
    else:
        turn.parts.append(_text(text_or_stand_in(block, turn.mapper.model)))


@OPENAI_REQUEST.register("tool_call")
def _tool_call(block: ToolCallBlock, turn: _Turn) -> None:
    if not turn.replying:
        raise unsupported(turn.mapper.model, block)
    # ``partial_args`` is text that never parsed: servers that read the history (vLLM,
    # llama.cpp) reject it, so only what did parse goes back.
    args = json.dumps(block.args, ensure_ascii=False)
    turn.calls.append(
        {"id": block.id, "type": "function", "function": {"name": block.name, "arguments": args}}
    )


@OPENAI_REQUEST.register("tool_result")
def _tool_result(block: ToolResultBlock, turn: _Turn) -> None:
    if turn.replying:
        turn.own_text(block)
    elif turn.role == "tool":
        turn.results.append(
            {"role": "tool", "tool_call_id": block.call_id, "content": tool_output_text(block)}
        )
    else:
        turn.parts.append(_text(tool_output_text(block)))


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
