"""Interrupts: a paused run's questions, and the tasks it will continue with."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationInfo, model_validator

from app.core.state.storable import INT64, check_storable

__all__ = ["Interrupt", "PendingTask"]


class Interrupt(BaseModel):
    """A question a node asked before it can go on (e.g. a batch of tool calls to approve).

    ``id`` is stable across saves and restarts; resume the run with a value for it.
    """

    model_config = ConfigDict(defer_build=True, extra="forbid", frozen=True, allow_inf_nan=False)

    id: str
    node: str
    value: JsonValue
    step: Annotated[int, Field(ge=INT64[0], le=INT64[1])]

    @model_validator(mode="after")
    def _storable(self, info: ValidationInfo) -> Interrupt:
        check_storable(self, info)
        return self


class PendingTask(BaseModel):
    """A node the run will execute next; ``task_id`` survives a pause and a restart."""

    model_config = ConfigDict(defer_build=True, extra="forbid", frozen=True)

    node: str
    task_id: str
