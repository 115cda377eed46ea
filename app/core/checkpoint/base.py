"""The checkpointer protocol: how a graph saves and restores its state after every step."""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol, TypeVar, runtime_checkable

from app.core.state.agent_state import AgentState
from app.core.state.interrupt import Interrupt

__all__ = [
    "Checkpoint",
    "CheckpointInfo",
    "CheckpointSource",
    "Checkpointer",
    "StateChanges",
    "conflict_message",
    "new_checkpoint_id",
]

S = TypeVar("S", bound=AgentState)

CheckpointSource = Literal["input", "loop", "resume", "fork", "update"]


def conflict_message(thread_id: str) -> str:
    """The sentence a user sees when two runs wrote one thread at once."""
    return (
        f"thread {thread_id} was changed by another Parley window or process while this run "
        "was going; this step was not saved. Open the thread again and repeat the last message."
    )


def new_checkpoint_id() -> str:
    """Return a new checkpoint id; ids sort by creation time."""
    return f"{time.time_ns():020x}{os.urandom(4).hex()}"


@dataclass(frozen=True, slots=True)
class StateChanges:
    """What one step changed, so a checkpointer writes only that.

    ``fields`` names the changed fields other than ``context``; ``upserted`` lists the ids of
    messages added or replaced, in the order they were applied (their current version is in the
    state); ``removed`` lists deleted ids; ``cleared`` means every earlier message was deleted
    first. ``None`` instead of a ``StateChanges`` means "write the whole state".
    """

    fields: frozenset[str] = frozenset()
    upserted: Sequence[str | int] = ()
    removed: Sequence[str | int] = ()
    cleared: bool = False

    @property
    def empty(self) -> bool:
        """Whether nothing changed."""
        return not (self.fields or self.upserted or self.removed or self.cleared)


@dataclass(frozen=True, slots=True)
class CheckpointInfo:
    """A checkpoint without its state: enough to list a thread's history."""

    thread_id: str
    checkpoint_id: str
    parent_id: str | None
    step: int
    created_at: float
    source: CheckpointSource
    next_nodes: tuple[str, ...] = ()
    interrupts: tuple[Interrupt, ...] = ()
    message_count: int = 0


@dataclass(frozen=True, slots=True)
class Checkpoint:
    """The full state of a thread after one step."""

    thread_id: str
    checkpoint_id: str
    parent_id: str | None
    step: int
    state: AgentState
    source: CheckpointSource = "loop"
    created_at: float = field(default_factory=time.time)

    @property
    def info(self) -> CheckpointInfo:
        """This checkpoint without its state."""
        meta = self.state.execution_meta
        return CheckpointInfo(
            thread_id=self.thread_id,
            checkpoint_id=self.checkpoint_id,
            parent_id=self.parent_id,
            step=self.step,
            created_at=self.created_at,
            source=self.source,
            next_nodes=tuple([t.node for t in meta.next_tasks]),
            interrupts=tuple(meta.interrupts),
            message_count=len(self.state.context),
        )


@runtime_checkable
class Checkpointer(Protocol):
    """Saves a thread's state after each step and gives any saved state back.

    Implementations: :class:`app.core.checkpoint.memory.InMemoryCheckpointer` and
    ``app.store.SqliteCheckpointer``; both pass the same contract tests.
    """

    async def aput(self, checkpoint: Checkpoint, changes: StateChanges | None) -> None:
        """Save ``checkpoint``. With ``changes``, only what changed since its parent needs
        writing; ``None`` writes it all (a first save, a fork, resuming an older checkpoint).

        With ``changes`` the parent must be the thread's latest checkpoint; if another run
        saved in between, raise :class:`app.core.errors.CheckpointConflict` and save nothing.
        """
        ...

    async def aget(
        self, thread_id: str, state_cls: type[S], checkpoint_id: str | None = None
    ) -> Checkpoint | None:
        """Return a checkpoint (the latest when ``checkpoint_id`` is None) with its state read
        as ``state_cls``, or ``None`` when the thread has none."""
        ...

    async def alist(
        self, thread_id: str, *, limit: int | None = None, before: str | None = None
    ) -> list[CheckpointInfo]:
        """Return the thread's checkpoints, newest first (only those older than ``before``)."""
        ...

    async def apending_interrupts(self, thread_id: str) -> list[Interrupt]:
        """Return the interrupts the thread's latest checkpoint is waiting on."""
        ...

    async def adelete_thread(self, thread_id: str) -> None:
        """Delete every checkpoint of the thread."""
        ...

    async def aput_write(self, thread_id: str, checkpoint_id: str, key: str, value: str) -> None:
        """Save one result of the step that started from checkpoint ``checkpoint_id`` before
        that step is checkpointed (a tool call that finished while others still run), so a
        run cut off mid-step does not do it again. ``key`` names the result within the step;
        a second write of one key replaces the first. The next :meth:`aput` of the thread
        drops every such write: its checkpoint holds the results now."""
        ...

    async def aget_writes(self, thread_id: str, checkpoint_id: str) -> dict[str, str]:
        """Return the results saved by :meth:`aput_write` for the step that started from
        ``checkpoint_id`` (empty when that is not the thread's latest checkpoint)."""
        ...
