"""Results a step saves one by one before its checkpoint, so a cut-off step keeps them."""

from __future__ import annotations

from dataclasses import dataclass, field

from app.core.checkpoint.base import Checkpointer

__all__ = ["StepWrites"]


@dataclass
class StepWrites:
    """The results saved so far by the step that runs from checkpoint ``checkpoint_id``.

    ``saved`` holds what an earlier, cut-off attempt at the same step saved (read when the run
    resumed); :meth:`put` saves one more through the checkpointer. Keys name a result within
    the step (a node's task id and what the node calls the result).
    """

    checkpointer: Checkpointer
    thread_id: str
    checkpoint_id: str
    saved: dict[str, str] = field(default_factory=dict)

    async def put(self, key: str, value: str) -> None:
        """Save ``value`` under ``key`` until the step's checkpoint is written."""
        await self.checkpointer.aput_write(self.thread_id, self.checkpoint_id, key, value)
