"""``MessageLog``: the open thread's messages, changed in place as updates stream in.

:func:`~app.core.state.reducers.add_messages` returns a new list on every call (one that shares
its storage with the old one, but a new one: see :class:`~app.core.state.message_list.MessageList`).
A window showing a thread applies thousands of chunks to one list it owns; :class:`MessageLog`
does that in place, with the same rules, and says which rows each update inserted, changed or
removed.

Costs, for a log of ``n`` messages: appending a message, replacing one, or merging a chunk into
one is O(1) (a chunk costs its own size: see :class:`~app.core.state.chunks.ChunkMerge`);
removing the message at row ``i`` is O(n - i), as the rows after it move up; removing all is
O(n). Reading a row that is being streamed joins the text added since it was last read, so a
view that repaints once per frame pays for a reply's length once per frame, not per chunk.

A list model over a log applies an update, then replays the returned :class:`LogChange` steps
as ``rowsInserted``/``dataChanged``/``rowsRemoved`` signals, counting its rows step by step.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal, NamedTuple

from app.core.errors import UserError
from app.core.state.chunks import ChunkMerge
from app.core.state.message import Message
from app.core.state.reducers import REMOVE_ALL_MESSAGES, MessageList, RemoveMessage, as_message

__all__ = ["LogChange", "MessageLog"]

MessageId = str | int
ChangeKind = Literal["inserted", "updated", "removed"]
_SEQUENCES = (list, tuple, MessageList)


class LogChange(NamedTuple):
    """One step of what an update did to a :class:`MessageLog`, in the order it happened.

    ``first``..``last`` (inclusive) are rows as numbered just before this step, as Qt's
    ``rowsInserted``/``rowsRemoved`` count them; ``ids`` are those rows' message ids. Replaying
    the steps in order on a copy of the rows (insert, refresh, remove) gives the log's rows.
    """

    kind: ChangeKind
    first: int
    last: int
    ids: tuple[MessageId, ...]


class _Steps:
    """Builds the list of changes, folding runs (appends in a row, repeated chunks) into one."""

    __slots__ = ("_steps",)

    def __init__(self) -> None:
        self._steps: list[tuple[ChangeKind, int, list[MessageId]]] = []

    def add(self, kind: ChangeKind, first: int, ids: list[MessageId]) -> None:
        if self._steps:
            last_kind, last_first, last_ids = self._steps[-1]
            end = last_first + len(last_ids)
            if kind == "updated" and last_kind != "removed" and last_first <= first < end:
                return  # the row is already reported, and is read after this update
            if kind == last_kind and first == (last_first if kind == "removed" else end):
                last_ids.extend(ids)  # the next row: one step covers both
                return
        self._steps.append((kind, first, ids))

    def done(self) -> list[LogChange]:
        return [
            LogChange(kind, first, first + len(ids) - 1, tuple(ids))
            for kind, first, ids in self._steps
        ]


class MessageLog:
    """An ordered, id-indexed, mutable list of messages, updated like ``add_messages``.

    ``log.apply(update)`` leaves ``log.snapshot()`` equal to ``add_messages(before, update)``:
    a new id is appended, a known id is replaced in place (a ``delta=True`` chunk merges into it
    instead), ``RemoveMessage(id)`` deletes and ``RemoveMessage(REMOVE_ALL_MESSAGES)`` deletes
    everything so far. It returns the :class:`LogChange` steps that update made. An update that
    cannot be applied raises :class:`~app.core.errors.UserError` and changes nothing.

    Message ids are unique within a log, as ``add_messages`` keeps them.
    """

    __slots__ = ("_index", "_rows")

    def __init__(self, messages: Iterable[Message] = ()) -> None:
        self._rows: list[Message | ChunkMerge] = list(messages)
        self._index: dict[MessageId, int] = {}
        for row, message in enumerate(self._rows):
            if self._index.setdefault(message.message_id, row) != row:
                raise UserError(
                    f"cannot hold two messages with the id {message.message_id!r} in one thread"
                )

    def __len__(self) -> int:
        return len(self._rows)

    def __getitem__(self, row: int) -> Message:
        """Return the message at ``row`` (negative rows count from the end)."""
        entry = self._rows[row]
        return entry.message() if isinstance(entry, ChunkMerge) else entry

    def __repr__(self) -> str:
        return f"MessageLog({len(self)} messages)"

    def index_of(self, message_id: MessageId) -> int | None:
        """Return the row of the message with ``message_id``, or ``None``."""
        return self._index.get(message_id)

    def snapshot(self) -> list[Message]:
        """Return the messages as a new list."""
        return [self[row] for row in range(len(self._rows))]

    def apply(self, update: Any) -> list[LogChange]:
        """Apply ``update`` (a message, a removal, a dict of fields, or a list of them) in place.

        Returns the steps it made, in order (see :class:`LogChange`).
        """
        if isinstance(update, Message):  # one message or streamed chunk: the common case
            kind, row = self._put(update)
            return [LogChange(kind, row, row, (update.message_id,))]
        items = update if isinstance(update, _SEQUENCES) else [update]
        prepared = [
            item if isinstance(item, RemoveMessage) else as_message(item, "MessageLog.apply")
            for item in items
        ]
        self._check_removals(prepared)
        steps = _Steps()
        for item in prepared:
            if isinstance(item, RemoveMessage):
                if item.id == REMOVE_ALL_MESSAGES:
                    self._remove_all(steps)
                else:
                    self._remove(self._index[item.id], steps)
            else:
                kind, row = self._put(item)
                steps.add(kind, row, [item.message_id])
        return steps.done()

    def _check_removals(self, items: list[Message | RemoveMessage]) -> None:
        """Raise before changing anything if a removal names a message that will not be there."""
        if not any(isinstance(item, RemoveMessage) for item in items):
            return
        present: dict[MessageId, bool] = {}
        cleared = False
        for item in items:
            if isinstance(item, Message):
                present[item.message_id] = True
            elif item.id == REMOVE_ALL_MESSAGES:
                present.clear()
                cleared = True
            elif present.get(item.id, not cleared and item.id in self._index):
                present[item.id] = False
            else:
                raise UserError(f"cannot remove message {item.id!r}: it is not in the context")

    def _put(self, message: Message) -> tuple[ChangeKind, int]:
        """Append, replace or merge ``message``; return what happened, and at which row."""
        message_id = message.message_id
        row = self._index.get(message_id)
        if row is None:
            row = len(self._rows)
            self._index[message_id] = row
            self._rows.append(message)
            return "inserted", row
        if message.delta:
            entry = self._rows[row]
            if not isinstance(entry, ChunkMerge):
                entry = self._rows[row] = ChunkMerge(entry)
            entry.add(message)
        else:
            self._rows[row] = message
        return "updated", row

    def _remove(self, row: int, steps: _Steps) -> None:
        rows, index = self._rows, self._index
        message_id = rows[row].message_id
        del rows[row]
        del index[message_id]
        for later in range(row, len(rows)):
            index[rows[later].message_id] = later
        steps.add("removed", row, [message_id])

    def _remove_all(self, steps: _Steps) -> None:
        if self._rows:
            steps.add("removed", 0, [entry.message_id for entry in self._rows])
            self._rows.clear()
            self._index.clear()
