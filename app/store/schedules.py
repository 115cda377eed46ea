"""``ScheduleStore``: schedules and their runs kept in the thread database, through the store's
worker.

Reach it as :attr:`app.store.Store.schedules`; every method is async and runs on the store's
thread. See :mod:`app.store._schedules` for how a due time is run once.
"""

from __future__ import annotations

import builtins

from app.store import _schedules
from app.store._worker import Worker
from app.store.schedule_records import RunRecord, RunStatus, ScheduleRecord

__all__ = ["ScheduleStore"]


class ScheduleStore:
    """The schedules and runs of one thread database; see the module docstring."""

    def __init__(self, worker: Worker) -> None:
        self._worker = worker

    async def add(self, record: ScheduleRecord) -> ScheduleRecord:
        """Keep ``record`` (an empty id gets a new one)."""
        return await self._worker.acall(_schedules.add, record)

    async def get(self, schedule_id: str) -> ScheduleRecord | None:
        """The schedule with ``schedule_id``, or ``None``."""
        return await self._worker.acall(_schedules.get, schedule_id)

    async def resolve(self, prefix: str) -> ScheduleRecord:
        """The one schedule whose id starts with ``prefix``; :class:`UserError` otherwise."""
        return await self._worker.acall(_schedules.resolve, prefix)

    async def list(self) -> builtins.list[ScheduleRecord]:
        """Every schedule, oldest first."""
        return await self._worker.acall(_schedules.list_schedules)

    async def remove(self, schedule_id: str) -> bool:
        """Remove the schedule (its runs stay); whether it was there."""
        return await self._worker.acall(_schedules.remove, schedule_id)

    async def set_paused(self, schedule_id: str, paused: bool, next_due: float | None) -> bool:
        """Pause the schedule, or set it going again from ``next_due``."""
        return await self._worker.acall(_schedules.set_paused, schedule_id, paused, next_due)

    async def set_next_due(self, schedule_id: str, next_due: float | None) -> None:
        """Move the schedule's next due time."""
        await self._worker.acall(_schedules.set_next_due, schedule_id, next_due)

    async def set_run_now(self, schedule_id: str) -> bool:
        """Ask the runner to run the schedule at its next look."""
        return await self._worker.acall(_schedules.set_run_now, schedule_id)

    async def claim(
        self,
        schedule_id: str,
        due_at: float,
        *,
        missed: int,
        note: str,
        next_due: float | None,
        started_at: float,
    ) -> RunRecord | None:
        """Start a run for ``due_at`` and move the next due time, at once; ``None`` when
        the due time has its run or one of the schedule's runs is still running."""
        return await self._worker.acall(
            _schedules.claim, schedule_id, due_at, missed, note, next_due, started_at
        )

    async def finish(
        self,
        run_id: int,
        status: RunStatus,
        sentence: str = "",
        *,
        thread_id: str | None,
        tokens: int = 0,
        cost: float = 0.0,
        finished_at: float | None = None,
    ) -> RunRecord:
        """Say how the run is now."""
        return await self._worker.acall(
            _schedules.finish, run_id, status, sentence, thread_id, tokens, cost, finished_at
        )

    async def runs(
        self, schedule_id: str | None = None, limit: int = 100
    ) -> builtins.list[RunRecord]:
        """The newest runs (of ``schedule_id`` only, when given), newest first."""
        return await self._worker.acall(_schedules.list_runs, schedule_id, limit)

    async def run_threads(self) -> set[str]:
        """The threads scheduled runs wrote into."""
        return await self._worker.acall(_schedules.run_threads)

    async def unfinished(self) -> builtins.list[RunRecord]:
        """The runs still running or waiting, oldest first."""
        return await self._worker.acall(_schedules.unfinished)
