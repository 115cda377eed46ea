"""``MemoryStore``: the memories kept in the thread database, through the store's worker.

Reach it as :attr:`app.store.Store.memories`; every method is async and runs on the store's
thread. See :mod:`app.store._memories` for what a memory's text may hold.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence

from app.store import _memories, _memory_vectors
from app.store._worker import Worker
from app.store.models import MemoryRecord

__all__ = ["MemoryStore"]


class MemoryStore:
    """The memories of one thread database; see the module docstring."""

    def __init__(self, worker: Worker) -> None:
        self._worker = worker
        self._vectors = _memory_vectors.VectorCache()
        """The vectors read for the last search by meaning (on the store's thread)."""

    async def add(self, records: Sequence[MemoryRecord]) -> builtins.list[MemoryRecord]:
        """Keep ``records`` (an empty id gets a new one), all or none; :class:`UserError`
        with one sentence when one cannot be kept (its text, or its agent gone)."""
        return await self._worker.acall(_memories.add_many, list(records))

    async def get(self, memory_id: str) -> MemoryRecord | None:
        """The memory with ``memory_id``, or ``None``."""
        return await self._worker.acall(_memories.get, memory_id)

    async def resolve(self, prefix: str) -> MemoryRecord:
        """The one memory whose id starts with ``prefix``; :class:`UserError` otherwise."""
        return await self._worker.acall(_memories.resolve, prefix)

    async def list(
        self, agent_id: str | None = None, *, every: bool = False
    ) -> builtins.list[MemoryRecord]:
        """Every memory (``every``), or ``agent_id``'s and everyone's; pinned first, then
        the newest."""
        return await self._worker.acall(_memories.list_memories, agent_id, every)

    async def edit(self, memory_id: str, text: str) -> MemoryRecord:
        """Give the memory a new text."""
        return await self._worker.acall(_memories.edit, memory_id, text)

    async def set_flags(
        self, memory_id: str, *, pinned: bool | None = None, local_only: bool | None = None
    ) -> MemoryRecord:
        """Pin or unpin the memory, or mark it local only or not."""
        return await self._worker.acall(_memories.set_flags, memory_id, pinned, local_only)

    async def forget(self, memory_id: str) -> bool:
        """Forget the memory; whether it was there."""
        return await self._worker.acall(_memories.forget, memory_id)

    async def forget_agent(self, agent_id: str) -> int:
        """Forget every memory of ``agent_id``; how many."""
        return await self._worker.acall(_memories.forget_agent, agent_id)

    async def search(
        self, text: str, agent_id: str | None = None, *, every: bool = False, limit: int = 50
    ) -> builtins.list[MemoryRecord]:
        """The memories holding every word of ``text``, best first."""
        return await self._worker.acall(_memories.search, text, agent_id, every, limit)

    async def related(
        self, text: str, agent_id: str | None, limit: int
    ) -> builtins.list[MemoryRecord]:
        """Memories not pinned (``agent_id``'s and everyone's) sharing a telling word with
        ``text``, closest first."""
        return await self._worker.acall(_memories.related, text, agent_id, limit)

    async def pinned(self, agent_id: str | None) -> builtins.list[MemoryRecord]:
        """The pinned memories of ``agent_id`` and everyone's, oldest first."""
        return await self._worker.acall(_memories.pinned_of, agent_id)

    async def mark_used(self, memory_ids: Sequence[str], when: float | None = None) -> None:
        """Note the memories were put before a model (now, or at ``when``)."""
        await self._worker.acall(_memories.mark_used, list(memory_ids), when)

    # Meaning -------------------------------------------------------------------------

    async def missing_vectors(self, model: str, limit: int) -> builtins.list[tuple[str, str]]:
        """Up to ``limit`` memories with no vector made by ``model`` (ids and texts)."""
        return await self._worker.acall(_memory_vectors.missing_vectors, model, limit)

    async def vector_count(self, model: str) -> int:
        """How many memories have a vector made by ``model``."""
        return await self._worker.acall(_memory_vectors.vector_count, model)

    async def save_vectors(
        self, model: str, made: Sequence[tuple[str, str, Sequence[float]]]
    ) -> int:
        """Save ``(memory id, text embedded, vector)`` made by ``model`` where the memory
        still holds that text; how many were saved."""
        return await self._worker.acall(_memory_vectors.save_vectors, model, list(made))

    async def nearest(
        self,
        model: str,
        vector: Sequence[float],
        agent_id: str | None = None,
        *,
        every: bool = False,
        limit: int = 50,
        floor: float = -1.0,
        pinned: bool = True,
    ) -> builtins.list[tuple[MemoryRecord, float]]:
        """The memories closest in meaning to ``vector`` (by ``model``'s vectors), each with
        its cosine, best first, none under ``floor``: every memory (``every``) or
        ``agent_id``'s and everyone's; pinned ones too unless not ``pinned``."""
        return await self._worker.acall(
            _memory_vectors.nearest,
            model,
            list(vector),
            (agent_id, every),
            limit,
            floor,
            pinned,
            self._vectors,
        )
