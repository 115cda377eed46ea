"""``ScheduleService``: the schedules a person sets (add, list, show, remove, pause, resume,
run now) and their runs, read and kept through the store.

A schedule's times are read by :mod:`app.services.schedules.when` in the time zone it was
made in (the person's, :func:`local_zone`). Running them is the runner's
(:mod:`app.services.schedules.runner`); this service only asks for a run (``run_now``).
"""

from __future__ import annotations

import builtins
import contextlib
import os
import time
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from app.core.budget import BudgetLimits
from app.core.errors import UserError
from app.services.agents import AgentService
from app.services.schedules.when import (
    ScheduleRule,
    next_due,
    next_runs_in_words,
    parse_cron,
    parse_when,
    rule_of,
)
from app.services.threads import ThreadService
from app.store import RunRecord, ScheduleRecord, Store

__all__ = ["RunRecord", "ScheduleRecord", "ScheduleService", "local_zone", "moment", "zone_of"]

MAX_PROMPT_CHARS = 20_000
"""The longest prompt a schedule keeps."""


def local_zone() -> ZoneInfo:
    """The person's time zone: ``TZ`` when it names one, else the system's
    (``/etc/localtime``), else UTC."""
    candidates = [os.environ.get("TZ", "").removeprefix(":")]
    try:
        target = os.path.realpath("/etc/localtime")
        if "zoneinfo/" in target:
            candidates.append(target.split("zoneinfo/", 1)[1])
    except OSError:
        pass
    for name in candidates:
        if name:
            try:
                return ZoneInfo(name)
            except (ZoneInfoNotFoundError, ValueError):
                continue
    return ZoneInfo("UTC")


def moment(seconds: float) -> datetime:
    """Seconds since the epoch as an aware time (UTC)."""
    return datetime.fromtimestamp(seconds, UTC)


def zone_of(record: ScheduleRecord) -> ZoneInfo:
    """The time zone the schedule's times are read in (UTC when it is no longer known)."""
    try:
        return ZoneInfo(record.zone)
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


class ScheduleService:
    """The schedules of one workspace; see the module docstring."""

    def __init__(
        self,
        store: Store,
        *,
        agents: AgentService,
        threads: ThreadService,
        data_dir: Path,
        zone: ZoneInfo | None = None,
    ) -> None:
        self._store = store
        self._agents = agents
        self._threads = threads
        self.data_dir = data_dir
        """The data folder: the runner's lock lives there."""
        self.zone = zone or local_zone()
        """The time zone new schedules are read in."""
        self._listeners: builtins.list[Callable[[], None]] = []

    def on_change(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call ``listener`` whenever a schedule is added or changed through this service
        (the runner wakes to look); returns how to stop."""
        self._listeners.append(listener)

        def stop() -> None:
            with contextlib.suppress(ValueError):
                self._listeners.remove(listener)

        return stop

    def _changed(self) -> None:
        for listener in list(self._listeners):
            listener()

    @staticmethod
    def rule(record: ScheduleRecord) -> ScheduleRule:
        """The schedule's rule, read again from what was kept."""
        return rule_of(record.kind, record.rule)

    def next_after(self, record: ScheduleRecord, now: datetime) -> datetime:
        """The schedule's first due time after ``now``."""
        return next_due(self.rule(record), now, zone_of(record), moment(record.created_at))

    def next_runs(self, record: ScheduleRecord, now: datetime, count: int = 3) -> str:
        """The next ``count`` run times in words, from its kept next due time (or that it
        is paused)."""
        if record.paused:
            return "Paused."
        after = now
        if record.next_due is not None and moment(record.next_due) > now:
            after = moment(record.next_due) - timedelta(seconds=1)
        return next_runs_in_words(
            self.rule(record), after, zone_of(record), moment(record.created_at), count
        )

    async def add(
        self,
        agent_name: str,
        prompt: str,
        *,
        every: str | None = None,
        cron: str | None = None,
        thread: str | None = None,
        model: str | None = None,
        limits: BudgetLimits | None = None,
        now: datetime | None = None,
    ) -> ScheduleRecord:
        """Keep a schedule running ``agent_name`` on ``prompt`` at the times of WHEN
        (``every``) or ``cron``, into a new thread each run (``thread`` ``None`` or
        ``"new"``) or into the thread ``thread``; :class:`UserError`, one sentence, when
        any part cannot be used."""
        if (every is None) == (cron is None):
            raise UserError("Say when the schedule runs: give --every WHEN or --cron EXPR.")
        rule = parse_when(every) if every is not None else parse_cron(cron or "")
        text = prompt.strip()
        if not text:
            raise UserError("The schedule has nothing to say: its prompt is empty.")
        if len(text) > MAX_PROMPT_CHARS:
            raise UserError(
                f"The prompt is {len(text):,} characters long; a schedule keeps at most "
                f"{MAX_PROMPT_CHARS:,}."
            )
        agent = await self._agents.get(agent_name)
        thread_id = None if thread in (None, "new") else thread
        if thread_id is not None:
            await self._threads.get(thread_id)  # raises when there is none
        when = now or datetime.now(UTC)
        record = ScheduleRecord(
            id="",
            agent_id=agent.id,
            prompt=text,
            kind=rule.kind,
            rule=rule.text,
            zone=self.zone.key,
            thread_id=thread_id,
            model=model,
            limits=limits or BudgetLimits(),
            created_at=when.timestamp(),
        )
        first = next_due(rule, when, self.zone, when)
        made = await self._store.schedules.add(replace(record, next_due=first.timestamp()))
        self._changed()
        return made

    async def list(self) -> builtins.list[ScheduleRecord]:
        """Every schedule, oldest first."""
        return await self._store.schedules.list()

    async def get(self, schedule_id: str) -> ScheduleRecord:
        """The schedule whose id starts with ``schedule_id``; :class:`UserError` otherwise."""
        return await self._store.schedules.resolve(schedule_id)

    async def by_id(self, schedule_id: str) -> ScheduleRecord | None:
        """The schedule with exactly ``schedule_id``, or ``None``."""
        return await self._store.schedules.get(schedule_id)

    async def remove(self, schedule_id: str) -> ScheduleRecord:
        """Remove the schedule (its runs and threads stay); the one removed."""
        record = await self.get(schedule_id)
        await self._store.schedules.remove(record.id)
        self._changed()
        return record

    async def pause(self, schedule_id: str) -> ScheduleRecord:
        """Pause the schedule: it is not due until resumed."""
        record = await self.get(schedule_id)
        await self._store.schedules.set_paused(record.id, True, None)
        self._changed()
        return await self.get(record.id)

    async def resume(self, schedule_id: str, now: datetime | None = None) -> ScheduleRecord:
        """Set a paused schedule going again from ``now``: what fell due while it was paused
        is not run."""
        record = await self.get(schedule_id)
        due = self.next_after(record, now or datetime.now(UTC))
        await self._store.schedules.set_paused(record.id, False, due.timestamp())
        self._changed()
        return await self.get(record.id)

    async def ask_run_now(self, schedule_id: str) -> ScheduleRecord:
        """Ask the runner to run the schedule at its next look, paused or not."""
        record = await self.get(schedule_id)
        await self._store.schedules.set_run_now(record.id)
        self._changed()
        return await self.get(record.id)

    async def runs(
        self, schedule_id: str | None = None, limit: int = 100
    ) -> builtins.list[RunRecord]:
        """The newest runs (of the schedule ``schedule_id`` names, when given)."""
        if schedule_id is not None:
            schedule_id = (await self.get(schedule_id)).id
        return await self._store.schedules.runs(schedule_id, limit)

    async def run_threads(self) -> set[str]:
        """The threads scheduled runs wrote into (the sidebar marks them)."""
        return await self._store.schedules.run_threads()

    async def unfinished(self) -> builtins.list[RunRecord]:
        """The runs still running or waiting, oldest first."""
        return await self._store.schedules.unfinished()

    async def agent_name(self, agent_id: str) -> str:
        """The agent's name, or a note that it is gone."""
        agent = await self._agents.by_id(agent_id)
        return agent.name if agent is not None else "(a removed agent)"

    @staticmethod
    def now() -> float:
        """The clock's time, in seconds since the epoch."""
        return time.time()
