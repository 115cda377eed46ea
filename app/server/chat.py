"""What the OpenAI and Anthropic requests share once read: the checked request, the error
for a bad one, its JSON body read, and a message's content read part by part (each API
says which parts it takes where) into Parley's blocks."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from app.core.models.protocol import GenerationConfig, ToolSpec
from app.core.state.message import Message, Role
from app.core.state.message_block import ContentBlock, ImageBlock, TextBlock
from app.server.errors import ApiError

__all__ = [
    "MAX_MESSAGES",
    "TEXT_ONLY",
    "ChatRequest",
    "PartReader",
    "SentImage",
    "bad",
    "made",
    "number",
    "read_body",
    "read_model_and_messages",
    "read_parts",
    "read_text",
    "read_text_part",
]

MAX_MESSAGES = 1000
"""How many messages one request may hold."""


@dataclass(frozen=True, slots=True)
class SentImage:
    """An image a client sent, not checked yet: where in the request it is, the block
    that holds it in its message, its bytes and the type the client named."""

    where: str
    block: ImageBlock
    data: bytes
    mime_type: str


@dataclass(frozen=True, slots=True)
class ChatRequest:
    """A checked chat request, whichever API sent it: the model's id as the client named
    it, the conversation, the generation settings, how the reply is sent, the client's
    tools, and the images to check before the model sees them."""

    model: str
    messages: list[Message]
    config: GenerationConfig
    stream: bool
    include_usage: bool
    tools: list[ToolSpec] = field(default_factory=list)
    images: list[SentImage] = field(default_factory=list)

    @property
    def has_tool_turns(self) -> bool:
        """Whether the conversation holds tool calls or their results."""
        return any(m.role == "tool" or m.tool_calls() for m in self.messages)


def bad(message: str, code: str, param: str | None = None) -> ApiError:
    """A bad request (400) with one sentence saying what is wrong."""
    return ApiError(400, message, "invalid_request_error", code, param)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def read_body(raw: bytes, wanted: str) -> dict[str, Any]:
    """The JSON object ``raw`` holds; a bad request otherwise (``wanted`` names what a
    body must hold, e.g. ``model and messages``)."""
    try:
        body = json.loads(raw, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        raise bad(
            f"The request body is not valid JSON; send a JSON object with {wanted}.",
            "invalid_json",
        ) from None
    if not isinstance(body, dict):
        raise bad(f"The request body must be a JSON object with {wanted}.", "invalid_json")
    return body


def number(body: dict[str, Any], name: str, kind: type | tuple[type, ...]) -> Any:
    """``body[name]`` when it is a number of ``kind`` (or absent); a bad request otherwise."""
    value = body.get(name)
    if value is not None and (isinstance(value, bool) or not isinstance(value, kind)):
        raise bad(f"{name} must be a number.", "invalid_value", name)
    return value


PartReader = Callable[[dict[str, Any], str], list[ContentBlock]]
"""Reads one content part (a JSON object with a ``type``), found at the given place in the
request, into blocks; raises a bad request saying what is wrong with it."""


def read_text_part(part: dict[str, Any], where: str) -> list[ContentBlock]:
    """A ``{"type": "text", "text": ...}`` part."""
    text = part.get("text")
    if not isinstance(text, str):
        raise bad(f"{where} is a text part whose text is not a string.", "invalid_content")
    return [TextBlock(text=text)]


def read_parts(
    content: Any, where: str, readers: Mapping[str, PartReader], takes: str
) -> list[ContentBlock]:
    """The blocks of ``content`` found at ``where``: a string is its text, a list is read
    part by part by the reader of each part's type (text parts next to each other are
    joined, empty text left out); ``takes`` says which parts that place takes."""
    if isinstance(content, str):
        return [TextBlock(text=content)] if content else []
    if not isinstance(content, list):
        raise bad(f"{where} must be a string or a list of {takes}.", "invalid_content")
    blocks: list[ContentBlock] = []
    for n, part in enumerate(content):
        kind = part.get("type") if isinstance(part, dict) else None
        reader = readers.get(kind) if isinstance(kind, str) else None
        if reader is None or not isinstance(part, dict):
            shown = kind if isinstance(kind, str) else "not an object with a type"
            raise bad(
                f"{where}[{n}] is {shown[:40]!r}: Parley's server takes only {takes} here.",
                "unsupported_content",
            )
        for block in reader(part, f"{where}[{n}]"):
            last = blocks[-1] if blocks else None
            if isinstance(block, TextBlock) and isinstance(last, TextBlock):
                blocks[-1] = TextBlock(text=last.text + block.text)
            else:
                blocks.append(block)
    return [b for b in blocks if not (isinstance(b, TextBlock) and not b.text)]


TEXT_ONLY: Mapping[str, PartReader] = {"text": read_text_part}
"""The readers of a place that takes text parts only."""


def read_text(content: Any, where: str, takes: str) -> str:
    """The text of ``content`` found at ``where``, a place that takes text only: a string,
    or text parts joined (``None`` or empty: no text); ``takes`` names those parts in the
    API's own words (``text parts``, ``text blocks``) for its error."""
    blocks = read_parts(content or "", where, TEXT_ONLY, takes)
    return "".join(b.text for b in blocks if isinstance(b, TextBlock))


def read_model_and_messages(body: dict[str, Any], params: bool) -> tuple[str, list[Any]]:
    """The model a request's ``body`` names and its messages (not read yet), checked: a bad
    request saying what is missing, or that there are too many messages (naming the
    ``param`` at fault when the API's errors do: ``params``)."""
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise bad(
            "model is missing: name one that GET /v1/models lists.",
            "missing_model",
            "model" if params else None,
        )
    messages = body.get("messages")
    where = "messages" if params else None
    if not isinstance(messages, list) or not messages:
        raise bad(
            "messages is missing or empty: send at least one message.", "missing_messages", where
        )
    if len(messages) > MAX_MESSAGES:
        raise bad(
            f"The request holds {len(messages)} messages; Parley takes at most {MAX_MESSAGES}.",
            "too_many_messages",
            where,
        )
    return model, messages


def made(role: Role, blocks: Sequence[ContentBlock], where: str, **fields: Any) -> Message:
    """The message of ``role`` holding ``blocks``; a bad request when it cannot be one
    (text that is not text, such as a lone surrogate)."""
    try:
        return Message(role=role, content=list(blocks), **fields)
    except ValidationError as exc:
        why = str(exc.errors(include_url=False)[0]["msg"]).removeprefix("Value error, ")
        raise bad(f"{where} cannot be read: {why}.", "invalid_content") from None
