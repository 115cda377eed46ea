"""The graph engine: build with ``StateGraph``, run the ``CompiledGraph`` it compiles to."""

from app.core.constants import END, START
from app.core.graph._runner import NodeError, Runner, prepare_context, task_ids_for
from app.core.graph.builder import StateGraph
from app.core.graph.compiled import CompiledGraph, Resume, StateSnapshot
from app.core.graph.context import (
    GraphInterrupt,
    RunContext,
    get_run_context,
    interrupt,
)
from app.core.graph.events import (
    BudgetChanged,
    CheckpointSaved,
    GraphEvent,
    Interrupted,
    MessageDelta,
    NodeFinished,
    NodeStarted,
    RunFailed,
    RunFinished,
    RunStarted,
    RunStopped,
    ToolProgress,
)
from app.core.graph.run_config import RunConfig, RunControl

__all__ = [
    "END",
    "START",
    "BudgetChanged",
    "CheckpointSaved",
    "CompiledGraph",
    "GraphEvent",
    "GraphInterrupt",
    "Interrupted",
    "MessageDelta",
    "NodeError",
    "NodeFinished",
    "NodeStarted",
    "Resume",
    "RunConfig",
    "RunContext",
    "RunControl",
    "RunFailed",
    "RunFinished",
    "RunStarted",
    "RunStopped",
    "Runner",
    "StateGraph",
    "StateSnapshot",
    "ToolProgress",
    "get_run_context",
    "interrupt",
    "prepare_context",
    "task_ids_for",
]
