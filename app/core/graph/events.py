"""Typed events a running graph streams: what a chat view follows as a run unfolds."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from app.core.budget import BudgetLimits, BudgetUsage
from app.core.state.chunks import ChunkMerge, MarkedMerge
from app.core.state.interrupt import Interrupt
from app.core.state.message import Message

__all__ = [
    "BudgetChanged",
    "CheckpointSaved",
    "GraphEvent",
    "Interrupted",
    "MessageDelta",
    "NodeFinished",
    "NodeStarted",
    "RunFailed",
    "RunFinished",
    "RunStarted",
    "RunStopped",
    "ToolProgress",
]


class _Event(BaseModel):
    model_config = ConfigDict(defer_build=True, extra="forbid", arbitrary_types_allowed=True)

    thread_id: str | None = None
    namespace: tuple[str, ...] = ()
    """Node path of the child graph that sent it; empty for the top graph."""


class RunStarted(_Event):
    """A run began (or resumed)."""

    kind: Literal["run_started"] = "run_started"
    run_id: str
    resumed: bool = False


class NodeStarted(_Event):
    """A node began executing."""

    kind: Literal["node_started"] = "node_started"
    node: str
    step: int


class NodeFinished(_Event):
    """A node finished; ``update`` is what it returned (before reducers)."""

    kind: Literal["node_finished"] = "node_finished"
    node: str
    step: int
    update: Any = None


class MessageDelta(_Event):
    """A piece of a message being streamed by a node (merge by ``chunk.message_id``).

    ``merge`` is the node's own merge of the message so far, this chunk included, when the
    node keeps one (the agent's model call does; a delegate's reaches the asking run as a
    :class:`MarkedMerge` with its name): whoever shows the message reads it there instead of
    merging every chunk a second time."""

    kind: Literal["message_delta"] = "message_delta"
    node: str
    chunk: Message
    merge: ChunkMerge | MarkedMerge | None = Field(default=None, exclude=True, repr=False)


class ToolProgress(_Event):
    """A tool call reported progress (``progress`` in 0..1 when known)."""

    kind: Literal["tool_progress"] = "tool_progress"
    call_id: str
    tool: str
    status: Literal["started", "progress", "finished", "error"] = "progress"
    progress: float | None = None
    message: str = ""


class BudgetChanged(_Event):
    """The run's spending changed; ``by_agent`` is who spent it (the thread's own agent as
    ``""``, each delegate agent by name)."""

    kind: Literal["budget_changed"] = "budget_changed"
    usage: BudgetUsage
    limits: BudgetLimits
    by_agent: dict[str, BudgetUsage] = Field(default_factory=dict)


class CheckpointSaved(_Event):
    """A step was saved."""

    kind: Literal["checkpoint_saved"] = "checkpoint_saved"
    checkpoint_id: str
    step: int


class Interrupted(_Event):
    """The run paused; it waits for answers to ``interrupts``. ``state`` is the state saved
    with the pause (checkpoint ``checkpoint_id``), so whoever reports the pause need not read
    it back."""

    kind: Literal["interrupted"] = "interrupted"
    interrupts: list[Interrupt]
    checkpoint_id: str | None = None
    state: Any = None


class RunStopped(_Event):
    """The run ended early because a stop was requested; the state is consistent."""

    kind: Literal["run_stopped"] = "run_stopped"
    state: Any = None


class RunFinished(_Event):
    """The run completed; ``state`` is the final state."""

    kind: Literal["run_finished"] = "run_finished"
    state: Any = None


class RunFailed(_Event):
    """The run failed in ``node``; the last good checkpoint is kept."""

    kind: Literal["run_failed"] = "run_failed"
    node: str | None
    error: str
    exception: Exception | None = Field(default=None, exclude=True, repr=False)
    """What was raised (a :class:`~app.core.graph.NodeError` holds the node's own error)."""


GraphEvent = Annotated[
    RunStarted
    | NodeStarted
    | NodeFinished
    | MessageDelta
    | ToolProgress
    | BudgetChanged
    | CheckpointSaved
    | Interrupted
    | RunStopped
    | RunFinished
    | RunFailed,
    Field(discriminator="kind"),
]
"""Any event of a running graph."""
