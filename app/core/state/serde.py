"""The one persistence door: every message, block and state is written and read here.

The store, exports, the clipboard and the network all go through these functions, so a block
written anywhere reads back as exactly the same block.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError

from app.core.errors import DecodeError
from app.core.state.message import Message
from app.core.state.message_block import ContentBlock

__all__ = [
    "BLOCKS",
    "MESSAGE",
    "MESSAGES",
    "dump_json",
    "dump_message",
    "dump_messages",
    "dump_state",
    "load_block",
    "load_message",
    "load_messages",
    "load_state",
]

S = TypeVar("S", bound=BaseModel)
T = TypeVar("T")

_LATER = ConfigDict(defer_build=True)
"""Validators are built at first use, not at import: a launch imports every model and uses few."""
MESSAGE: TypeAdapter[Message] = TypeAdapter(Message)
MESSAGES: TypeAdapter[list[Message]] = TypeAdapter(list[Message], config=_LATER)
BLOCKS: TypeAdapter[ContentBlock] = TypeAdapter(ContentBlock, config=_LATER)


def dump_message(message: Message) -> bytes:
    """Serialise one message to JSON bytes."""
    return MESSAGE.dump_json(message)


def dump_messages(messages: list[Message]) -> bytes:
    """Serialise a list of messages to JSON bytes."""
    return MESSAGES.dump_json(messages)


def dump_state(state: BaseModel) -> bytes:
    """Serialise a whole state (any ``AgentState`` subclass) to JSON bytes."""
    return state.__pydantic_serializer__.to_json(state)  # model_dump_json's bytes, not decoded


def dump_json(value: Any) -> bytes:
    """Serialise any value holding messages or blocks to JSON bytes."""
    return TypeAdapter(type(value)).dump_json(value)


def _load(adapter: TypeAdapter[T], data: str | bytes, what: str) -> T:
    try:
        return adapter.validate_json(data)
    except ValidationError as exc:
        raise DecodeError(what, [dict(e) for e in exc.errors(include_url=False)]) from None


def load_message(data: str | bytes) -> Message:
    """Read one message from JSON; raises :class:`DecodeError` naming the bad field."""
    return _load(MESSAGE, data, "message")


def load_messages(data: str | bytes) -> list[Message]:
    """Read a list of messages from JSON."""
    return _load(MESSAGES, data, "messages")


def load_block(data: str | bytes) -> ContentBlock:
    """Read one content block from JSON."""
    return _load(BLOCKS, data, "content block")


def load_state(data: str | bytes, state_cls: type[S]) -> S:
    """Read a state of class ``state_cls`` from JSON."""
    try:
        return state_cls.model_validate_json(data)
    except ValidationError as exc:
        raise DecodeError(
            state_cls.__name__, [dict(e) for e in exc.errors(include_url=False)]
        ) from None


def message_from_python(value: Any) -> Message:
    """Validate a Python object (e.g. a dict) as a message."""
    try:
        return MESSAGE.validate_python(value)
    except ValidationError as exc:
        raise DecodeError("message", [dict(e) for e in exc.errors(include_url=False)]) from None
