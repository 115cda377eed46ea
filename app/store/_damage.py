"""Reading rows that disk damage or a hand edit broke: a damaged message is shown as such,
anything else damaged is one clear :class:`StoreCorruptError`, never a raw traceback."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, TypeVar

from app.core.errors import DecodeError
from app.core.state.message import Message
from app.core.state.message_block import ErrorBlock
from app.core.state.serde import load_message
from app.store.errors import StoreCorruptError

__all__ = ["DAMAGED", "damaged_message", "load_row", "read_stored", "role_in"]

T = TypeVar("T")

DAMAGED = (
    "This message is damaged in the thread database (its stored bytes are not readable), "
    "so it cannot be shown. The rest of the thread is intact."
)
"""What a damaged message says in place of its content."""

_ROLE = re.compile(r'"role"\s*:\s*"(user|assistant|system|tool)"')


def role_in(body: str) -> str | None:
    """The role a stored message body (or its start) names, if it can be seen."""
    found = _ROLE.search(body)
    return found.group(1) if found else None


def damaged_message(rowid: int, message_id: Any, body: str) -> Message:
    """The message shown in place of the unreadable row ``rowid``."""
    role = role_in(body)
    if isinstance(message_id, bytes):
        message_id = message_id.decode("utf-8", "replace")
    if not isinstance(message_id, str | int) or isinstance(message_id, bool):
        message_id = f"damaged-{rowid}"
    return Message(
        message_id=message_id,
        role=role or "assistant",
        content=[ErrorBlock(error=DAMAGED, code="damaged_message")],
        timestamp=None,
        metadata={"damaged": True},
    )


def load_row(rowid: int, message_id: Any, body: Any) -> Message:
    """Read one stored message from its raw bytes; a damaged one as :func:`damaged_message`."""
    raw = body if isinstance(body, bytes) else str(body).encode("utf-8", "replace")
    try:
        return load_message(raw.decode("utf-8"))
    except (UnicodeDecodeError, DecodeError):
        return damaged_message(rowid, message_id, raw.decode("utf-8", "replace"))


def read_stored(load: Callable[..., T], data: Any, *args: Any, what: str) -> T:
    """``load(data, *args)`` for data read back from the file; damage becomes a
    :class:`StoreCorruptError` naming ``what``."""
    try:
        if not isinstance(data, str | bytes):
            raise DecodeError(what, [])
        return load(data, *args)
    except DecodeError:
        raise StoreCorruptError(
            f"Part of the thread database is damaged: {what} cannot be read. Other threads "
            f"are intact; export what you can and start that thread again."
        ) from None
