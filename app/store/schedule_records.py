"""What the store hands back about schedules: plain, immutable records."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from app.core.budget import BudgetLimits

__all__ = ["RunRecord", "RunStatus", "ScheduleKind", "ScheduleRecord"]

ScheduleKind = Literal["every", "cron"]
RunStatus = Literal["running", "done", "waiting", "failed", "stopped"]


@dataclass(frozen=True, slots=True)
class ScheduleRecord:
    """One schedule as kept: the agent (``agent_id``) given ``prompt`` at the times of
    ``rule`` (a WHEN for kind ``every``, a cron expression for ``cron``) in the time zone
    ``zone``; into ``thread_id`` each time (``None``: a new thread each run), on ``model``
    (``None``: the agent's, else the default), within ``limits`` each run; ``paused``,
    asked to run now (``run_now``), made at ``created_at``, next due at ``next_due``
    (seconds since the epoch; ``None`` while paused)."""

    id: str
    agent_id: str
    prompt: str
    kind: ScheduleKind
    rule: str
    zone: str
    thread_id: str | None = None
    model: str | None = None
    limits: BudgetLimits = field(default_factory=BudgetLimits)
    paused: bool = False
    run_now: bool = False
    created_at: float = 0.0
    next_due: float | None = None

    @property
    def short_id(self) -> str:
        """The first characters of the id, enough to name it in the terminal."""
        return self.id[:8]


@dataclass(frozen=True, slots=True)
class RunRecord:
    """One run of a schedule: the due time it is for, when it started and finished, how it
    is (``status``) with its sentence (why it failed or waits), the note of due times it
    stands for (``missed`` of them passed without a run), its thread and what it spent."""

    id: int
    schedule_id: str
    due_at: float
    started_at: float
    status: RunStatus
    finished_at: float | None = None
    sentence: str = ""
    note: str = ""
    missed: int = 0
    thread_id: str | None = None
    tokens: int = 0
    cost: float = 0.0
