"""Reducers: the only way state changes.

A field declared as ``Annotated[T, reducer]`` is updated with ``reducer(old, new)``; any other
field is replaced. :func:`add_messages` is the reducer of the conversation: append, upsert by id
keeping position, delete with :class:`RemoveMessage`, and merge streamed chunks.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict

from app.core.errors import UserError
from app.core.state.chunks import merge_chunk
from app.core.state.message import Message
from app.core.state.message_list import MessageList

__all__ = ["REMOVE_ALL_MESSAGES", "MessageList", "RemoveMessage", "add_messages"]

REMOVE_ALL_MESSAGES: Final = "__remove_all__"
"""Pass as the id of a :class:`RemoveMessage` to delete every message before it."""

Reducer = Callable[[Any, Any], Any]


class RemoveMessage(BaseModel):
    """An instruction to ``add_messages`` to delete the message with ``id``."""

    model_config = ConfigDict(defer_build=True, extra="forbid", frozen=True)

    type: Literal["remove"] = "remove"
    id: str | int

    def __init__(self, id: str | int | None = None, **data: Any) -> None:
        if id is not None:
            data["id"] = id
        super().__init__(**data)


def as_message(item: Any, taker: str = "add_messages") -> Message:
    """Read one update item (a ``Message``, a dict of its fields, or plain text) as a message."""
    if isinstance(item, Message):
        return item
    if isinstance(item, dict):
        return Message.model_validate(item)
    if isinstance(item, str):
        return Message.text_message(item)
    raise UserError(
        f"{taker} takes Message, RemoveMessage or dict items, not {type(item).__name__}"
    )


def add_messages(left: list[Message] | None, right: Any) -> MessageList:
    """Merge ``right`` (a message, a removal, or a list of them) into ``left``.

    - a new id is appended;
    - a known id replaces the message in place (a ``delta=True`` chunk merges into it instead);
    - ``RemoveMessage(id)`` deletes; ``RemoveMessage(REMOVE_ALL_MESSAGES)`` deletes all so far.

    ``left`` is never modified.
    """
    result = MessageList.derive([] if left is None else left)
    if isinstance(right, Message):  # the common case, told first: MessageList is an ABC
        items: Any = (right,)
    else:
        items = right if isinstance(right, list | tuple | MessageList) else [right]
    fresh: dict[str | int, Message] = {}  # new ids, appended together at the end
    for item in items:
        if isinstance(item, RemoveMessage):
            if fresh:
                result.push_all(fresh.values())
                fresh.clear()
            if item.id == REMOVE_ALL_MESSAGES:
                result.clear()
            else:
                result.drop(item.id)
            continue
        message = as_message(item)
        mid = message.message_id
        if mid in fresh:
            fresh[mid] = merge_chunk(fresh[mid], message) if message.delta else message
            continue
        pos = result.position(mid)
        if pos is None:
            fresh[mid] = message
        elif message.delta:
            result.replace(pos, merge_chunk(result[pos], message))
        else:
            result.replace(pos, message)
    if fresh:
        result.push_all(fresh.values())
    return result


add_messages.__parley_validates__ = True  # type: ignore[attr-defined]
