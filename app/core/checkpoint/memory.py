"""An in-memory checkpointer: for tests, demos and graphs that need no persistence."""

from __future__ import annotations

from typing import TypeVar

from app.core.checkpoint.base import (
    Checkpoint,
    CheckpointInfo,
    StateChanges,
    conflict_message,
)
from app.core.errors import CheckpointConflict
from app.core.state.agent_state import AgentState
from app.core.state.interrupt import Interrupt
from app.core.state.serde import dump_state, load_state

__all__ = ["InMemoryCheckpointer"]

S = TypeVar("S", bound=AgentState)


class InMemoryCheckpointer:
    """Keeps every checkpoint in a dict; states are stored as JSON so nothing aliases."""

    def __init__(self) -> None:
        self._threads: dict[str, dict[str, tuple[CheckpointInfo, bytes]]] = {}
        self._latest: dict[str, str] = {}
        self._writes: dict[str, tuple[str, dict[str, str]]] = {}

    async def aput(self, checkpoint: Checkpoint, changes: StateChanges | None) -> None:
        """Save ``checkpoint`` (this implementation always stores the whole state)."""
        latest = self._latest.get(checkpoint.thread_id)
        if changes is not None and latest is not None and checkpoint.parent_id != latest:
            raise CheckpointConflict(conflict_message(checkpoint.thread_id))
        self._writes.pop(checkpoint.thread_id, None)
        thread = self._threads.setdefault(checkpoint.thread_id, {})
        thread[checkpoint.checkpoint_id] = (checkpoint.info, dump_state(checkpoint.state))
        self._latest[checkpoint.thread_id] = checkpoint.checkpoint_id

    async def aget(
        self, thread_id: str, state_cls: type[S], checkpoint_id: str | None = None
    ) -> Checkpoint | None:
        """Return a checkpoint, the latest by default."""
        thread = self._threads.get(thread_id)
        if not thread:
            return None
        cid = checkpoint_id or self._latest[thread_id]
        if cid not in thread:
            return None
        info, data = thread[cid]
        return Checkpoint(
            thread_id=thread_id,
            checkpoint_id=cid,
            parent_id=info.parent_id,
            step=info.step,
            state=load_state(data, state_cls),
            source=info.source,
            created_at=info.created_at,
        )

    async def alist(
        self, thread_id: str, *, limit: int | None = None, before: str | None = None
    ) -> list[CheckpointInfo]:
        """Return the thread's checkpoints, newest first."""
        infos = sorted(
            (info for info, _ in self._threads.get(thread_id, {}).values()),
            key=lambda i: i.checkpoint_id,
            reverse=True,
        )
        if before is not None:
            infos = [i for i in infos if i.checkpoint_id < before]
        return infos[:limit] if limit is not None else infos

    async def apending_interrupts(self, thread_id: str) -> list[Interrupt]:
        """Return the interrupts of the latest checkpoint."""
        cid = self._latest.get(thread_id)
        if cid is None:
            return []
        return list(self._threads[thread_id][cid][0].interrupts)

    async def adelete_thread(self, thread_id: str) -> None:
        """Forget the thread."""
        self._threads.pop(thread_id, None)
        self._latest.pop(thread_id, None)
        self._writes.pop(thread_id, None)

    async def aput_write(self, thread_id: str, checkpoint_id: str, key: str, value: str) -> None:
        """Keep one result of the step running from ``checkpoint_id`` (the latest one)."""
        if self._latest.get(thread_id) != checkpoint_id:
            return
        held = self._writes.get(thread_id)
        if held is None or held[0] != checkpoint_id:
            held = self._writes[thread_id] = (checkpoint_id, {})
        held[1][key] = value

    async def aget_writes(self, thread_id: str, checkpoint_id: str) -> dict[str, str]:
        """Return the results kept for the step running from ``checkpoint_id``."""
        held = self._writes.get(thread_id)
        if held is None or held[0] != checkpoint_id or self._latest.get(thread_id) != checkpoint_id:
            return {}
        return dict(held[1])
