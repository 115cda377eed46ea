"""A wrapper over the store's real checkpointer that counts how often a pending approval is
read back from the database: every read (a checkpoint loaded, the pending interrupts listed)
whose result holds the approval a run paused on."""

from __future__ import annotations

from typing import Any, TypeVar

from app.core.checkpoint.base import Checkpoint, CheckpointInfo, StateChanges
from app.core.state import AgentState, Interrupt
from app.core.tools import requests_of
from app.store import SqliteCheckpointer, Store

S = TypeVar("S", bound=AgentState)


class CountingCheckpointer:
    """Passes every call to the store's own checkpointer and counts, in :attr:`reads`, the
    reads that return a pending approval."""

    def __init__(self, real: SqliteCheckpointer) -> None:
        self.real = real
        self.head_cache = real.head_cache
        self.reads = 0

    def _count(self, interrupts: Any) -> None:
        if any(requests_of(i.value) is not None for i in interrupts):
            self.reads += 1

    async def aput(self, checkpoint: Checkpoint, changes: StateChanges | None) -> None:
        await self.real.aput(checkpoint, changes)

    async def aget(
        self, thread_id: str, state_cls: type[S], checkpoint_id: str | None = None
    ) -> Checkpoint | None:
        found = await self.real.aget(thread_id, state_cls, checkpoint_id)
        if found is not None:
            self._count(found.state.execution_meta.interrupts)
        return found

    async def alist(
        self, thread_id: str, *, limit: int | None = None, before: str | None = None
    ) -> list[CheckpointInfo]:
        return await self.real.alist(thread_id, limit=limit, before=before)

    async def apending_interrupts(self, thread_id: str) -> list[Interrupt]:
        found = await self.real.apending_interrupts(thread_id)
        self._count(found)
        return found

    async def adelete_thread(self, thread_id: str) -> None:
        await self.real.adelete_thread(thread_id)

    async def aput_write(self, thread_id: str, checkpoint_id: str, key: str, value: str) -> None:
        await self.real.aput_write(thread_id, checkpoint_id, key, value)

    async def aget_writes(self, thread_id: str, checkpoint_id: str) -> dict[str, str]:
        return await self.real.aget_writes(thread_id, checkpoint_id)


def count_pause_reads(store: Store) -> CountingCheckpointer:
    """Put a counting wrapper in front of ``store``'s checkpointer (before any turn runs)."""
    counting = CountingCheckpointer(store.checkpointer)
    store.checkpointer = counting  # type: ignore[assignment]
    return counting
