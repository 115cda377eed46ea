"""Interrupts: a paused run's questions, and the tasks it will continue with."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, JsonValue

__all__ = ["Interrupt", "PendingTask"]


class Interrupt(BaseModel):
    """A question a node asked before it can go on (e.g. a batch of tool calls to approve).

    ``id`` is stable across saves and restarts; resume the run with a value for it.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    node: str
    value: JsonValue
    step: int


class PendingTask(BaseModel):
    """A node the run will execute next; ``task_id`` survives a pause and a restart."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    node: str
    task_id: str
