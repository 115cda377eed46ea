"""Checkpointing: the protocol and the in-memory implementation."""

from app.core.checkpoint.base import (
    Checkpoint,
    Checkpointer,
    CheckpointInfo,
    CheckpointSource,
    StateChanges,
    new_checkpoint_id,
)
from app.core.checkpoint.memory import InMemoryCheckpointer
from app.core.checkpoint.writes import StepWrites

__all__ = [
    "Checkpoint",
    "CheckpointInfo",
    "CheckpointSource",
    "Checkpointer",
    "InMemoryCheckpointer",
    "StateChanges",
    "StepWrites",
    "new_checkpoint_id",
]
