"""The messages of each thread's latest checkpoint, kept in memory after they were written or
read, so the next turn of a long thread does not parse its whole history again.

A run reads its thread's latest state when it starts and once more when it ends; parsing a
10,000-message history takes the store's thread a few hundred milliseconds of holding the
interpreter lock, which the window feels as stutter while a reply streams. A checkpoint's
messages never change once it is saved (every change is a new checkpoint with a new id), so
messages kept under the checkpoint id they belong to stay right for as long as that id is the
thread's latest; a checkpoint written by another process is a new id and simply misses.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence

from app.core.state.message import Message

__all__ = ["HeadCache"]


class HeadCache:
    """The latest checkpoint's messages of the ``size`` threads used last (store thread only)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._entries: OrderedDict[str, tuple[str, tuple[Message, ...]]] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def keep(self, thread_id: str, checkpoint_id: str, messages: Sequence[Message]) -> None:
        """Remember ``messages`` as the context of ``checkpoint_id``, the thread's latest."""
        self._entries[thread_id] = (checkpoint_id, tuple(messages))
        self._entries.move_to_end(thread_id)
        while len(self._entries) > self.size:
            self._entries.popitem(last=False)

    def messages(self, thread_id: str, checkpoint_id: str) -> list[Message] | None:
        """A new list of the messages kept for ``checkpoint_id``, or ``None`` when another
        checkpoint (or none) is kept for the thread."""
        entry = self._entries.get(thread_id)
        if entry is None or entry[0] != checkpoint_id:
            self.misses += 1
            return None
        self._entries.move_to_end(thread_id)
        self.hits += 1
        return list(entry[1])

    def forget(self, thread_id: str) -> None:
        """Drop what is kept for the thread (it is being written)."""
        self._entries.pop(thread_id, None)
