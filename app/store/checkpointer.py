"""The SQLite checkpointer: every step of every thread, written as only what changed.

How history is kept
-------------------
Each thread's checkpoints get a sequence number ``seq`` (1, 2, 3, ... in the order they were
saved). Messages are rows, one per *version* of a message: ``(thread_id, segment, message_id,
position, valid_from, valid_to, body)``. A version is part of checkpoint ``seq`` of its segment
when ``valid_from <= seq < valid_to`` (``valid_to`` is NULL while the version is current).

- A step whose parent is the thread's latest checkpoint, saved with :class:`StateChanges`,
  writes only the changed rows: a new or replaced message inserts one version (a replaced
  one keeps its position), a replaced or removed one gets its old version's ``valid_to`` set.
  Appending one message to a 10,000-message thread touches one row, one checkpoint row and
  the thread row, whatever the length of the thread.
- A step saved with ``changes=None`` (the first checkpoint, a fork, a resume from an older
  checkpoint), or whose parent is not the latest checkpoint, writes a full snapshot and
  starts a new *segment* (numbered by its ``seq``). Older segments are never modified, so any
  older checkpoint keeps its exact state: time travel is one indexed query.
- ``changes`` is checked cheaply against the state (new ids must be the tail of the context,
  the counts must add up); if it does not match, the full snapshot is written instead.

The non-message fields of the state (``execution_meta``, ``context_summary``, a subclass's own
fields) are small and stored whole with each checkpoint. Messages and states are written and
read only through :mod:`app.core.state.serde`. The full-text index (FTS5) reads its text
from the view ``messages_indexed``: the current version of each message in a thread's latest
segment, so search finds what the thread shows now (FTS5's integrity check proves index and
view agree). Pending interrupts of the latest checkpoint also have their own table, so
"which threads wait for me" is cheap. Per step the file gets about ten changed pages (the
message row and its two indexes, the checkpoint row and its index, the thread row, the FTS
segment), whatever the thread's length.

All SQLite work runs on the store's one worker thread; these async methods never block the
event loop.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from app.core.checkpoint.base import Checkpoint, CheckpointInfo, StateChanges
from app.core.state.agent_state import AgentState
from app.core.state.interrupt import Interrupt
from app.store import _checkpoints, _step_writes, _threads
from app.store._head_cache import HeadCache

if TYPE_CHECKING:
    from app.store._worker import Worker

__all__ = ["SqliteCheckpointer"]

S = TypeVar("S", bound=AgentState)


class SqliteCheckpointer:
    """A :class:`app.core.checkpoint.Checkpointer` backed by the thread database.

    Get one from :attr:`app.store.Store.checkpointer`; it shares the store's connection and
    worker thread and is closed with the store.
    """

    def __init__(self, worker: Worker, *, remember_latest: int = 0) -> None:
        self._worker = worker
        self.head_cache = HeadCache(remember_latest) if remember_latest > 0 else None
        """The latest messages of the ``remember_latest`` threads used last, or ``None``
        (read and written on the worker only)."""

    async def aput(self, checkpoint: Checkpoint, changes: StateChanges | None) -> None:
        """Save ``checkpoint``; with ``changes`` only the changed messages are written."""
        await self._worker.acall(
            _checkpoints.put, checkpoint, changes, self._worker.owner, self.head_cache
        )

    async def aget(
        self, thread_id: str, state_cls: type[S], checkpoint_id: str | None = None
    ) -> Checkpoint | None:
        """Return a checkpoint (the latest by default) with its exact state, or ``None``."""
        return await self._worker.acall(
            _checkpoints.get, thread_id, state_cls, checkpoint_id, self.head_cache
        )

    async def alist(
        self, thread_id: str, *, limit: int | None = None, before: str | None = None
    ) -> list[CheckpointInfo]:
        """Return the thread's checkpoints, newest first (only those older than ``before``)."""
        return await self._worker.acall(_checkpoints.list_infos, thread_id, limit, before)

    async def apending_interrupts(self, thread_id: str) -> list[Interrupt]:
        """Return the interrupts the thread's latest checkpoint is waiting on."""
        return await self._worker.acall(_checkpoints.pending, thread_id)

    async def adelete_thread(self, thread_id: str) -> None:
        """Delete the thread, its checkpoints, and its media no other thread uses."""
        await self._worker.acall(_threads.delete, thread_id)

    async def aput_write(self, thread_id: str, checkpoint_id: str, key: str, value: str) -> None:
        """Save one result of the step running from ``checkpoint_id`` (table ``step_writes``)."""
        await self._worker.acall(_step_writes.put, thread_id, checkpoint_id, key, value)

    async def aget_writes(self, thread_id: str, checkpoint_id: str) -> dict[str, str]:
        """Return the results saved for the step running from ``checkpoint_id``."""
        return await self._worker.acall(_step_writes.get, thread_id, checkpoint_id)
