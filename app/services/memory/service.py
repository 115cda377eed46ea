"""``MemoryService``: the memories of one store — add, list, edit, pin, forget, search, mark
used, choose the few that go before a model call, export and import — each change told on
the bus as :class:`~app.services.events.MemoriesChanged`.

Agents are named by id here (``None``: everyone, "about me"); a file names them by name.
"""

from __future__ import annotations

import asyncio
import builtins
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.core.errors import UserError
from app.core.graph.context import RunContext
from app.core.private_files import FILE_MODE
from app.core.tools import Tool
from app.services.bus import EventBus
from app.services.events import MemoriesChanged
from app.services.memory.choice import MAX_MEMORY_TOKENS, RELATED, MemoryChoice, pick
from app.services.memory.files import (
    FileMemory,
    memory_file_bytes,
    read_memory_file,
)
from app.services.memory.meaning import FILL_PER_QUESTION, MeaningSource, MemoryMeaning, fused
from app.services.turn import TurnDeps
from app.store import BUILTIN_AGENT_ID, MemoryRecord, Store, agent_name_key
from app.tools.memory import remember_tool

__all__ = ["MemoryImport", "MemoryService"]

_CANDIDATES = 12
"""How many related memories the word index is asked for before the budget is applied."""


@dataclass(frozen=True, slots=True)
class MemoryImport:
    """What a memory file would add here (each with the id of its agent), and how many of its
    memories are here already (same text, same agent) and would not be added again."""

    memories: tuple[MemoryRecord, ...]
    agent_names: tuple[tuple[str, str], ...] = ()
    already_here: int = 0


class MemoryService:
    """The memories of one store; see the module docstring."""

    def __init__(
        self, store: Store, *, events: EventBus, meaning: MeaningSource | None = None
    ) -> None:
        self._store = store
        self._events = events
        self._remember: Tool[..., Any] | None = None
        self.meaning = MemoryMeaning(store.memories, meaning or (lambda: None))
        """Vectors for the memories, with the knowledge folders' embedding model when one
        is chosen (``meaning``), and search by them."""

    def _changed(self, memory_id: str | None = None) -> None:
        self._events.emit(MemoriesChanged(memory_id))

    # Reading -------------------------------------------------------------------------

    async def list(
        self, agent_id: str | None = None, *, every: bool = False
    ) -> builtins.list[MemoryRecord]:
        """Every memory (``every``), or those of ``agent_id`` with everyone's (``None``:
        everyone's alone); pinned first, then the newest."""
        return await self._store.memories.list(agent_id, every=every)

    async def get(self, memory_id: str) -> MemoryRecord:
        """The memory whose id is or starts with ``memory_id`` (its short id);
        :class:`UserError` when there is none or more than one."""
        found = await self._store.memories.get(memory_id)
        return found if found is not None else await self._store.memories.resolve(memory_id)

    async def search(
        self, query: str, agent_id: str | None = None, *, every: bool = True, limit: int = 50
    ) -> builtins.list[MemoryRecord]:
        """The memories holding every word of ``query`` (the last as a prefix) and, where
        meaning search is on, those close to it in meaning, best first: all of them, or
        (``every`` off) ``agent_id``'s and everyone's. Memories without a vector yet get
        theirs first."""
        words = await self._store.memories.search(query, agent_id, every=every, limit=limit)
        if not self.meaning.on:
            return words
        await self.meaning.fill()
        near = await self.meaning.closest(query, agent_id, every=every, limit=limit)
        return fused(words, near, limit)

    async def choose(
        self,
        question: str,
        agent_id: str | None,
        limit: int = RELATED,
        budget_tokens: int = MAX_MEMORY_TOKENS,
        *,
        remote: bool = False,
    ) -> MemoryChoice:
        """The memories to put before a model call on ``question`` for ``agent_id``: every
        pinned one of it and everyone's, then up to ``limit`` sharing the question's telling
        words, closest first, within ``budget_tokens`` (never more than
        :data:`~app.services.memory.choice.MAX_MEMORY_TOKENS`); with ``remote`` (a model on
        another computer) a local-only memory is held back. Where meaning search is on,
        those close to the question in meaning are related too. Marks nothing used."""
        pinned = await self._store.memories.pinned(agent_id)
        wanted = max(_CANDIDATES, limit * 2)
        related = await self._store.memories.related(question, agent_id, wanted)
        if self.meaning.on:
            await self.meaning.fill(FILL_PER_QUESTION)
            near = await self.meaning.closest(
                question, agent_id, every=False, limit=wanted, pinned=False
            )
            related = fused(related, near, wanted)
        return pick(pinned, related, limit=limit, budget_tokens=budget_tokens, remote=remote)

    # Changing ------------------------------------------------------------------------

    async def add(
        self,
        text: str,
        *,
        agent_id: str | None = None,
        source: tuple[str, str | None] | None = None,
        pinned: bool = False,
        local_only: bool = False,
    ) -> MemoryRecord:
        """Keep a new memory for ``agent_id`` (``None``: everyone) from ``source`` (a thread
        and its message; ``None``: added by the person); :class:`UserError` with one sentence
        when its text cannot be a memory (empty, too long, a control character)."""
        thread_id, message_id = source if source is not None else (None, None)
        draft = MemoryRecord(
            id="",
            text=text,
            agent_id=agent_id,
            thread_id=thread_id,
            message_id=message_id,
            pinned=pinned,
            local_only=local_only,
        )
        [kept] = await self._store.memories.add([draft])
        await self.meaning.give_vectors([kept])
        self._changed(kept.id)
        return kept

    async def edit(self, memory_id: str, text: str) -> MemoryRecord:
        """Give the memory a new text (checked as a new one is)."""
        memory = await self.get(memory_id)
        changed = await self._store.memories.edit(memory.id, text)
        await self.meaning.give_vectors([changed])
        self._changed(changed.id)
        return changed

    async def pin(self, memory_id: str, pinned: bool = True) -> MemoryRecord:
        """Pin the memory (it then goes before every call of its agent) or unpin it."""
        memory = await self.get(memory_id)
        changed = await self._store.memories.set_flags(memory.id, pinned=pinned)
        self._changed(changed.id)
        return changed

    async def set_local_only(self, memory_id: str, local_only: bool = True) -> MemoryRecord:
        """Keep the memory away from models on other computers, or let it go to them."""
        memory = await self.get(memory_id)
        changed = await self._store.memories.set_flags(memory.id, local_only=local_only)
        self._changed(changed.id)
        return changed

    async def forget(self, memory_id: str) -> MemoryRecord:
        """Forget the memory; returns it as it was."""
        memory = await self.get(memory_id)
        await self._store.memories.forget(memory.id)
        self._changed(memory.id)
        return memory

    async def forget_agent(self, agent_id: str) -> int:
        """Forget every memory of ``agent_id`` (everyone's stay); how many."""
        gone = await self._store.memories.forget_agent(agent_id)
        if gone:
            self._changed()
        return gone

    async def mark_used(self, memories: Sequence[MemoryRecord], when: float | None = None) -> None:
        """Note that ``memories`` were put before a model now (or at ``when``)."""
        if memories:
            await self._store.memories.mark_used([m.id for m in memories], when)
            self._changed(memories[0].id if len(memories) == 1 else None)

    # What agents propose ---------------------------------------------------------------

    def tools(self) -> builtins.list[Tool[..., Any]]:
        """``remember``: an agent proposes a memory, kept after the person says yes (the
        same tool each time, so a thread's agent built with it is built once)."""
        if self._remember is None:
            self._remember = remember_tool(self.keep_proposed)
        return [self._remember]

    async def keep_proposed(self, text: str, why: str, asker: RunContext | None) -> dict[str, Any]:
        """Keep what an agent proposed (the person said yes) for the thread's agent (everyone,
        for the built-in one) or the delegate that proposed it, its source the asking run's
        thread; not in an incognito turn.
        What the tool answers: whether it was kept, and why not."""
        deps = asker.deps_as(TurnDeps) if asker is not None else None
        if deps is None or not deps.memory:
            return {
                "kept": False,
                "note": (
                    "Nothing was kept: memory is off here (an incognito conversation, or "
                    "memory paused)."
                ),
            }
        agent_id = None if deps.agent_id in (None, BUILTIN_AGENT_ID) else deps.agent_id
        if asker is not None and asker.agent:  # a delegate proposes a memory of its own
            delegate = await self._store.find_agent(asker.agent)
            agent_id = delegate.id if delegate is not None else None
        try:
            kept = await self.add(text, agent_id=agent_id, source=(deps.thread_id, None))
        except UserError as exc:
            return {"kept": False, "note": f"Nothing was kept: {exc}"}
        return {"kept": True, "memory_id": kept.short_id, "text": kept.text}

    # Files ---------------------------------------------------------------------------

    async def export_to(self, target: Path) -> int:
        """Write every memory (local-only ones with their flag) to ``target`` as a memory
        file, whole or not at all, readable by its owner alone; how many were written."""
        names = {a.id: a.name for a in await self._store.list_agents()}
        memories = await self.list(every=True)
        data = memory_file_bytes(
            [
                FileMemory(
                    text=m.text,
                    agent=None if m.agent_id is None else names.get(m.agent_id, m.agent_id),
                    pinned=m.pinned,
                    local_only=m.local_only,
                    made_at=m.made_at,
                    last_used_at=m.last_used_at,
                    thread_id=m.thread_id,
                    message_id=m.message_id,
                )
                for m in memories
            ]
        )
        await asyncio.to_thread(_write_private, Path(target), data)
        return len(memories)

    async def read_file(self, data: bytes) -> MemoryImport:
        """What the memory file ``data`` would add here; adds nothing. :class:`UserError`
        with one sentence naming what and where when it is no memory file, or names an agent
        not here."""
        read = read_memory_file(data)
        agents = {agent_name_key(a.name): a for a in await self._store.list_agents()}
        here = {(m.agent_id, m.text) for m in await self.list(every=True)}
        plan: list[MemoryRecord] = []
        names: dict[str, str] = {}
        skipped = 0
        for n, item in enumerate(read, 1):
            agent_id = None
            if item.agent is not None:
                agent = agents.get(agent_name_key(item.agent))
                if agent is None:
                    raise UserError(
                        f"Memory {n} is for the agent {item.agent!r}, which is not here; add "
                        f"that agent first (parley agents add or import). Nothing was added."
                    )
                agent_id, names[agent.id] = agent.id, agent.name
            if (agent_id, item.text) in here:
                skipped += 1
                continue
            here.add((agent_id, item.text))
            has_thread = item.thread_id is not None and (
                await self._store.get_thread(item.thread_id) is not None
            )
            plan.append(
                MemoryRecord(
                    id="",
                    text=item.text,
                    agent_id=agent_id,
                    thread_id=item.thread_id if has_thread else None,
                    message_id=item.message_id if has_thread else None,
                    made_at=item.made_at or time.time(),
                    last_used_at=item.last_used_at,
                    pinned=item.pinned,
                    local_only=item.local_only,
                )
            )
        return MemoryImport(tuple(plan), tuple(names.items()), skipped)

    async def import_memories(self, plan: MemoryImport) -> builtins.list[MemoryRecord]:
        """Add the memories of ``plan`` (after a person said yes), all or none."""
        if not plan.memories:
            return []
        kept = await self._store.memories.add(plan.memories)
        await self.meaning.give_vectors(kept)
        self._changed()
        return kept


def _write_private(target: Path, data: bytes) -> None:
    """Write ``data`` to ``target`` through a new file beside it (mode 0600) renamed over it,
    so ``target`` is whole or as it was."""
    part = target.with_name(f".{target.name}.part")
    part.unlink(missing_ok=True)
    fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, FILE_MODE)
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.replace(part, target)
    finally:
        part.unlink(missing_ok=True)
