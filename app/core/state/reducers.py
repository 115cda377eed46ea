"""Reducers: the only way state changes.

A field declared as ``Annotated[T, reducer]`` is updated with ``reducer(old, new)``; any other
field is replaced. :func:`add_messages` is the reducer of the conversation: append, upsert by id
keeping position, delete with :class:`RemoveMessage`, and merge streamed chunks.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict

from app.core.errors import UserError
from app.core.state.chunks import merge_chunk
from app.core.state.message import Message

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


def _dropping_index(name: str) -> Any:
    """Wrap list method ``name`` so that calling it makes a :class:`MessageList` re-index."""
    method = getattr(list, name)

    @functools.wraps(method)
    def changed(self: MessageList, *args: Any, **kwargs: Any) -> Any:
        self._index = None
        return method(self, *args, **kwargs)

    return changed


class MessageList(list[Message]):
    """A list of messages that remembers where each id is, so upserts need no scan.

    The position index moves to the newest list derived from it (see :meth:`derive`); an older
    list rebuilds its own index if it is ever used again.
    """

    __slots__ = ("_index", "_indexed_len")

    def __init__(self, items: Iterable[Message] = ()) -> None:
        super().__init__(items)
        self._index: dict[str | int, int] | None = None
        self._indexed_len = -1

    @classmethod
    def derive(cls, base: list[Message]) -> MessageList:
        """Copy ``base``, taking over its index when it has a current one."""
        if not isinstance(base, MessageList):
            return cls(base)
        # One copy: a list made from a subclass of list reads its items one by one, which
        # costs less than copying them twice (to a plain list, and that into a new one).
        new = cls(base)
        if base._index is not None:
            if base._indexed_len == len(base):
                new._index, new._indexed_len = base._index, base._indexed_len
            base._index = None
        return new

    # A change made with an ordinary list method may move or replace ids without changing the
    # length, so each of them drops the index; the reducer itself calls list's own methods.
    __setitem__ = _dropping_index("__setitem__")
    __delitem__ = _dropping_index("__delitem__")
    __iadd__ = _dropping_index("__iadd__")
    __imul__ = _dropping_index("__imul__")
    append = _dropping_index("append")
    extend = _dropping_index("extend")
    insert = _dropping_index("insert")
    pop = _dropping_index("pop")
    remove = _dropping_index("remove")
    clear = _dropping_index("clear")
    sort = _dropping_index("sort")
    reverse = _dropping_index("reverse")

    def __copy__(self) -> MessageList:
        return MessageList(self)

    def _ensure_index(self) -> dict[str | int, int]:
        if self._index is None or self._indexed_len != len(self):
            self._index = {m.message_id: i for i, m in enumerate(self)}
            self._indexed_len = len(self)
        return self._index

    def position(self, message_id: str | int) -> int | None:
        """Return where the message with ``message_id`` is, or ``None``."""
        pos = self._ensure_index().get(message_id)
        if pos is not None and self[pos].message_id != message_id:
            self._index = None
            pos = self._ensure_index().get(message_id)
        return pos

    def push(self, message: Message) -> None:
        """Append ``message``, keeping the index current."""
        index = self._ensure_index()
        index[message.message_id] = len(self)
        list.append(self, message)
        self._indexed_len = len(self)

    def drop(self, message_id: str | int) -> None:
        """Delete the message with ``message_id``."""
        pos = self.position(message_id)
        if pos is None:
            raise UserError(f"cannot remove message {message_id!r}: it is not in the context")
        list.__delitem__(self, pos)
        self._index = None


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
    result = MessageList.derive(left or [])
    items = right if isinstance(right, list | tuple) else [right]
    for item in items:
        if isinstance(item, RemoveMessage):
            if item.id == REMOVE_ALL_MESSAGES:
                result.clear()
            else:
                result.drop(item.id)
            continue
        message = as_message(item)
        pos = result.position(message.message_id)
        if pos is None:
            result.push(message)
        elif message.delta:
            list.__setitem__(result, pos, merge_chunk(result[pos], message))
        else:
            list.__setitem__(result, pos, message)
    return result


add_messages.__parley_validates__ = True  # type: ignore[attr-defined]
