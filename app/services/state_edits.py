"""Saving a thread's state changed by hand (a message deleted, a cut-off run discarded) as a new
step after the latest one, so history keeps the step before it."""

from __future__ import annotations

from app.core.checkpoint.base import Checkpoint, new_checkpoint_id
from app.core.state import AgentState
from app.store import Store

__all__ = ["save_edited_state"]


async def save_edited_state(store: Store, latest: Checkpoint, state: AgentState) -> None:
    """Save ``state`` as the thread's next checkpoint after ``latest`` (nothing runs)."""
    await store.checkpointer.aput(
        Checkpoint(
            thread_id=latest.thread_id,
            checkpoint_id=new_checkpoint_id(),
            parent_id=latest.checkpoint_id,
            step=latest.step,
            state=state,
            source="update",
        ),
        None,
    )
