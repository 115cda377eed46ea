"""``MessageList``: the conversation as a list whose versions share their messages.

A state's ``context`` is a :class:`MessageList`. It reads and changes like a list of messages
(indexing, slicing, iteration, ``==`` with a list, ``append``, ``pop``, ``sort``...), but it
keeps its messages in fixed-size tuples that any number of lists share: a copy, and every list
:func:`~app.core.state.reducers.add_messages` returns, copies only the short list of those
tuples (one pointer per 64 messages), and replacing or appending a message builds one new tuple.
No list ever changes a tuple, so changing one list never shows in another, old or new.

Costs, for a list of ``n`` messages: reading a row is O(1); a copy, an upsert and an append
are O(n / 64 + 64); inserting or deleting anywhere but the end rebuilds the list, O(n), as a
plain list's memmove is. The list also remembers where each id is (see :meth:`position`), and
hands that index on to the list derived from it, so an upsert needs no scan.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, MutableSequence
from typing import Any, SupportsIndex, overload

from pydantic import GetCoreSchemaHandler
from pydantic_core import core_schema

from app.core.errors import UserError
from app.core.state.message import Message

__all__ = ["MessageList"]

_SHIFT = 6
_WIDTH = 1 << _SHIFT
_MASK = _WIDTH - 1

Chunk = tuple[Message, ...]


def _chunked(items: list[Message]) -> list[Chunk]:
    return [tuple(items[i : i + _WIDTH]) for i in range(0, len(items), _WIDTH)]


class MessageList(MutableSequence[Message]):
    """A list of messages that shares its storage with the lists copied or derived from it.

    Every chunk but the last holds exactly 64 messages, so row ``i`` is in chunk ``i >> 6``.
    """

    __slots__ = ("_chunks", "_index", "_indexed_len", "_len")

    def __init__(self, items: Iterable[Message] = ()) -> None:
        flat = items if isinstance(items, list) else list(items)
        self._chunks: list[Chunk] = _chunked(flat)
        self._len = len(flat)
        self._index: dict[str | int, int] | None = None
        self._indexed_len = -1

    # --- copies ------------------------------------------------------------------------------

    def _twin(self) -> MessageList:
        new = MessageList.__new__(MessageList)
        new._chunks = self._chunks.copy()
        new._len = self._len
        new._index = None
        new._indexed_len = -1
        return new

    @classmethod
    def derive(cls, base: Iterable[Message]) -> MessageList:
        """Copy ``base``, taking over its index when it has a current one."""
        if type(base) is not MessageList and not isinstance(base, MessageList):
            return cls(base)
        new = base._twin()
        if base._index is not None:
            if base._indexed_len == base._len:
                new._index, new._indexed_len = base._index, base._indexed_len
            base._index = None
        return new

    def copy(self) -> MessageList:
        """A shallow copy with its own index (as ``list.copy``)."""
        return self._twin()

    __copy__ = copy

    def __reduce__(self) -> tuple[type[MessageList], tuple[list[Message]]]:
        return (MessageList, (list(self),))

    # --- reading -----------------------------------------------------------------------------

    def __len__(self) -> int:
        return self._len

    def _row(self, i: SupportsIndex) -> int:
        row = i.__index__()
        if row < 0:
            row += self._len
        if not 0 <= row < self._len:
            raise IndexError("list index out of range")
        return row

    @overload
    def __getitem__(self, i: SupportsIndex) -> Message: ...

    @overload
    def __getitem__(self, i: slice) -> list[Message]: ...

    def __getitem__(self, i: SupportsIndex | slice) -> Message | list[Message]:
        if isinstance(i, slice):
            start, stop, step = i.indices(self._len)
            if step == 1:
                return list(itertools.islice(self, start, max(start, stop)))
            return list(self)[i]
        row = self._row(i)
        return self._chunks[row >> _SHIFT][row & _MASK]

    def __iter__(self) -> Iterator[Message]:
        return itertools.chain.from_iterable(self._chunks)

    def __reversed__(self) -> Iterator[Message]:
        return itertools.chain.from_iterable(reversed(c) for c in reversed(self._chunks))

    def __contains__(self, value: object) -> bool:
        return any(value in chunk for chunk in self._chunks)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, MessageList):
            # both keep every chunk but the last full, so equal lists have equal chunks
            return self._len == other._len and self._chunks == other._chunks
        if isinstance(other, list):
            return self._len == len(other) and list(self) == other
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # changeable, as a list is

    def __repr__(self) -> str:
        return repr(list(self))

    def __add__(self, other: Iterable[Message]) -> list[Message]:
        return [*self, *other]

    def __radd__(self, other: Iterable[Message]) -> list[Message]:
        return [*other, *self]

    # --- changing ----------------------------------------------------------------------------

    def _reset(self, items: list[Message]) -> None:
        self._chunks = _chunked(items)
        self._len = len(items)
        self._index = None

    def _put(self, row: int, message: Message) -> None:
        c, j = row >> _SHIFT, row & _MASK
        chunk = self._chunks[c]
        self._chunks[c] = (*chunk[:j], message, *chunk[j + 1 :])

    def _add(self, message: Message) -> None:
        if self._len & _MASK:
            self._chunks[-1] = (*self._chunks[-1], message)
        else:
            self._chunks.append((message,))
        self._len += 1

    def _add_all(self, items: list[Message]) -> None:
        room = -self._len & _MASK  # free places in the last chunk
        if room and items:
            self._chunks[-1] = (*self._chunks[-1], *items[:room])
        self._chunks += _chunked(items[room:])
        self._len += len(items)

    @overload
    def __setitem__(self, i: SupportsIndex, value: Message) -> None: ...

    @overload
    def __setitem__(self, i: slice, value: Iterable[Message]) -> None: ...

    def __setitem__(self, i: SupportsIndex | slice, value: Any) -> None:
        if isinstance(i, slice):
            items = list(self)
            items[i] = value
            self._reset(items)
            return
        self._put(self._row(i), value)
        self._index = None  # the id at that row may have changed

    def __delitem__(self, i: SupportsIndex | slice) -> None:
        if not isinstance(i, slice) and self._row(i) == self._len - 1:
            self.pop()
            return
        items = list(self)
        del items[i]
        self._reset(items)

    def insert(self, index: int, value: Message) -> None:
        """Insert ``value`` before row ``index`` (as ``list.insert``)."""
        if index >= self._len:
            self.append(value)
            return
        items = list(self)
        items.insert(index, value)
        self._reset(items)

    def append(self, value: Message) -> None:
        """Append ``value`` (as ``list.append``)."""
        self._add(value)
        self._index = None

    def extend(self, values: Iterable[Message]) -> None:
        """Append each of ``values`` (as ``list.extend``)."""
        self._add_all(list(values))
        self._index = None

    def __iadd__(self, values: Iterable[Message]) -> MessageList:
        self.extend(values)
        return self

    def pop(self, index: int = -1) -> Message:
        """Remove and return the message at row ``index`` (as ``list.pop``)."""
        if not self._len:
            raise IndexError("pop from empty list")
        row = self._row(index)
        if row != self._len - 1:
            items = list(self)
            message = items.pop(row)
            self._reset(items)
            return message
        last = self._chunks[-1]
        message = last[-1]
        if len(last) == 1:
            self._chunks.pop()
        else:
            self._chunks[-1] = last[:-1]
        self._len -= 1
        self._index = None
        return message

    def clear(self) -> None:
        """Remove every message."""
        self._reset([])

    def sort(self, *, key: Any = None, reverse: bool = False) -> None:
        """Sort in place (as ``list.sort``)."""
        self._reset(sorted(self, key=key, reverse=reverse))

    def reverse(self) -> None:
        """Reverse in place."""
        self._reset(list(reversed(self)))

    # --- the id index ------------------------------------------------------------------------

    def _ensure_index(self) -> dict[str | int, int]:
        if self._index is None or self._indexed_len != self._len:
            self._index = {m.message_id: i for i, m in enumerate(self)}
            self._indexed_len = self._len
        return self._index

    def position(self, message_id: str | int) -> int | None:
        """Return where the message with ``message_id`` is, or ``None``."""
        pos = self._ensure_index().get(message_id)
        if pos is not None and self._chunks[pos >> _SHIFT][pos & _MASK].message_id != message_id:
            self._index = None
            pos = self._ensure_index().get(message_id)
        return pos

    def push_all(self, messages: Iterable[Message]) -> None:
        """Append ``messages`` (whose ids are new and distinct), keeping the index current."""
        items = list(messages)
        if not items:
            return
        index = self._ensure_index()
        for row, message in enumerate(items, self._len):
            index[message.message_id] = row
        if len(items) == 1:
            self._add(items[0])
        else:
            self._add_all(items)
        self._indexed_len = self._len

    def replace(self, row: int, message: Message) -> None:
        """Put ``message``, which has the id of the message at ``row``, in its place."""
        self._put(row, message)

    def drop(self, message_id: str | int) -> None:
        """Delete the message with ``message_id``."""
        pos = self.position(message_id)
        if pos is None:
            raise UserError(f"cannot remove message {message_id!r}: it is not in the context")
        del self[pos]

    # --- pydantic ----------------------------------------------------------------------------

    @classmethod
    def __get_pydantic_core_schema__(
        cls, source: Any, handler: GetCoreSchemaHandler
    ) -> core_schema.CoreSchema:
        items = handler.generate_schema(list[Message])

        def read(value: Any, validate: core_schema.ValidatorFunctionWrapHandler) -> MessageList:
            if isinstance(value, MessageList):
                return value.copy()  # its messages were validated when they were added
            return cls(validate(value))

        return core_schema.no_info_wrap_validator_function(
            read,
            items,
            serialization=core_schema.plain_serializer_function_ser_schema(
                list, return_schema=items
            ),
        )
