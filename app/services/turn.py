"""Which thread the running turn is on, for what a turn reaches without being handed it.

A model wrapper or a tool is built once and shared by every thread's turns; what it must know
of the turn and is not in the run's context (whether the thread wants knowledge passages; whose
folders to search when no run context is handed over) it reads from :data:`TURN_THREAD`,
which :class:`~app.services.runs.RunService` sets in each turn's own task (and so in every
task and worker thread the turn starts), never in another's.
"""

from __future__ import annotations

from contextvars import ContextVar

__all__ = ["TURN_THREAD"]

TURN_THREAD: ContextVar[str | None] = ContextVar("parley_turn_thread", default=None)
"""The id of the thread whose turn is running here (``None``: outside a turn)."""
