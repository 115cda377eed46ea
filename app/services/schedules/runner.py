"""``ScheduleRunner``: runs the schedules that are due, through the workspace's runs, one
runner at a time (:class:`~app.services.schedules.lock.RunnerLock`).

A due schedule is claimed in the store in one transaction with its next due time, so each
due time runs once; due times missed while no runner ran run **once**, with a note ("missed
3 runs since Monday 30 November at 08:00 CET"). A run is a turn sent on a thread (a new one,
or the schedule's own) with the schedule's agent and limits: a call that needs approval, or
a budget limit, pauses it as any turn pauses, and the run says ``waiting`` until someone
answers (the window, or ``parley chat --thread ID --resume``); a runner seeing the thread
no longer waits writes how it ended. A runner that was killed mid-run leaves the run
``running``: the next runner (holding the lock, so nothing else runs it) resumes the cut-off
turn from its last saved step, or says how it ended.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import partial

from app.core.errors import ParleyError, UserError
from app.core.state import AgentState, ErrorBlock
from app.services.agents import AgentService
from app.services.bus import EventBus
from app.services.events import ApprovalNeeded, BudgetPaused, Problem, WorkspaceEvent
from app.services.runs import RunService
from app.services.schedules.idle import IdleWait, StoreWatch
from app.services.schedules.lock import RunnerLock, RunnerTaken
from app.services.schedules.service import ScheduleService, moment, zone_of
from app.services.schedules.when import due_times, in_words
from app.services.threads import ThreadService, title_of
from app.store import RunRecord, ScheduleRecord, Store
from app.store.schedule_records import RunStatus

__all__ = ["Clock", "ScheduleRunner", "clock_from"]

log = logging.getLogger(__name__)

Clock = Callable[[], datetime]
"""The runner's clock: the time now, aware."""

POLL_SECONDS = 10.0
"""How often a sleeping runner reads the clock and the database file's size and time."""
LONGEST_SLEEP = 900.0
"""The longest a runner sleeps without a look."""
CLOCK_SLACK = 60.0
"""How far behind a run's start the clock may be before it is said to have gone back."""

_GONE_AGENT = (
    "The schedule's agent is no longer here; give the schedule another agent or remove it."
)


@dataclass
class _Heard:
    """What a run's thread reported while the runner drove it."""

    problems: list[Problem] = field(default_factory=list)


class ScheduleRunner:
    """Runs the due schedules of one workspace; see the module docstring."""

    def __init__(
        self,
        store: Store,
        schedules: ScheduleService,
        *,
        runs: RunService,
        threads: ThreadService,
        agents: AgentService,
        events: EventBus,
        clock: Clock,
    ) -> None:
        self._store = store
        self._schedules = schedules
        self._runs = runs
        self._threads = threads
        self._agents = agents
        self._events = events
        self.clock = clock
        self.lock = RunnerLock(schedules.data_dir)
        self._tasks: dict[int, asyncio.Task[RunRecord]] = {}
        self._seen: list[ScheduleRecord] = []
        """The schedules as the last look read them."""
        self._held: set[str] = set()
        """Schedules due but not started at the last look (their one thread still busy)."""
        self.said: list[str] = []
        """Sentences about schedules that did not run when due (a clock that went back)."""
        self._idle = IdleWait(StoreWatch(store.path), lambda: self.clock().timestamp())
        self._unwatch = schedules.on_change(self._idle.wake)
        self.on_waiting: Callable[[RunRecord], None] | None = None
        """Told of each run that starts waiting for someone (the window notifies)."""

    async def start(self) -> RunnerTaken | None:
        """Take the runner's lock and pick up what a runner before left unfinished; who
        runs the schedules instead when another runner holds the lock."""
        taken = self.lock.take(self.clock())
        if taken is None:
            await self._recover()
        return taken

    def stop(self) -> None:
        """Give the lock up."""
        self._unwatch()
        self.lock.release()

    def wake(self) -> None:
        """Look again now (a serving runner), as when a schedule changes in this process."""
        self._idle.wake()

    async def look(self, only: str | None = None) -> list[RunRecord]:
        """Write how waiting runs ended when their threads no longer wait, then start every
        due schedule (only the one with id ``only``, when given); the runs started."""
        assert self.lock.held, "take the lock first"
        await self._refresh_waiting()
        started: list[RunRecord] = []
        now = self.clock()
        self._seen = await self._schedules.list()
        self._held = set()
        for record in self._seen:
            if only is not None and record.id != only:
                continue
            run = await self._claim(record, now)
            if run is not None:
                started.append(run)
                self._tasks[run.id] = asyncio.create_task(self._execute(record, run))
            elif record.run_now or _due(record, now):
                # its last run is still going: a write to the database (that run ending)
                # wakes the runner for it, not the due time it already passed
                self._held.add(record.id)
        return started

    def answered(
        self, run: RunRecord, start: Callable[[], Awaitable[asyncio.Task[AgentState | None]]]
    ) -> asyncio.Task[RunRecord]:
        """Drive a waiting run, answered here with ``start``, to its end and write how it
        ended (or that it waits again)."""
        assert run.thread_id is not None
        task = asyncio.create_task(self._drive(run, run.thread_id, start))
        self._tasks[run.id] = task
        return task

    async def settle(self, within: float) -> None:
        """Wait up to ``within`` seconds for the runs this runner started to write how they
        ended (after their turns were stopped); one that does not stays ``running`` and is
        picked up by the next runner."""
        tasks = list(self._tasks.values())
        if tasks:
            await asyncio.wait(tasks, timeout=within)

    async def wait(self) -> list[RunRecord]:
        """Wait for every run this runner started; how each is now."""
        done: list[RunRecord] = []
        while self._tasks:
            run_id, task = next(iter(self._tasks.items()))
            try:
                done.append(await task)
            finally:
                self._tasks.pop(run_id, None)
        return done

    def next_due(self, records: list[ScheduleRecord]) -> float | None:
        """The earliest due time of ``records`` (seconds since the epoch), leaving out the
        paused ones and those held back at the last look (their thread still busy: a
        change in the database wakes the runner for them)."""
        dues = [
            r.next_due
            for r in records
            if not r.paused and r.next_due is not None and r.id not in self._held
        ]
        return min(dues, default=None)

    async def serve(
        self, stop: asyncio.Event, longest: float = LONGEST_SLEEP, poll: float = POLL_SECONDS
    ) -> None:
        """Run due schedules until ``stop`` is set (the lock taken already), asleep between
        looks until the next due time (see :mod:`app.services.schedules.idle`)."""
        stopping = asyncio.create_task(stop.wait())
        stopping.add_done_callback(lambda _task: self._idle.wake())
        try:
            while not stop.is_set():
                self._idle.settle()
                try:
                    await self.look()
                except ParleyError as exc:  # a look that fails is tried again, not the end
                    log.warning("the schedules could not be read: %s", exc)
                for run_id in [i for i, t in self._tasks.items() if t.done()]:
                    self._tasks.pop(run_id)
                # the schedules as the look just read them (a claim only moves a due time
                # later); a run's own writes wake it once more, to no cost
                await self._idle.sleep(self.next_due(self._seen), poll=poll, longest=longest)
        finally:
            stopping.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await stopping

    async def _claim(self, record: ScheduleRecord, now: datetime) -> RunRecord | None:
        """Claim the schedule's run due at ``now`` (with its note of missed due times), or
        ``None`` when it is not due or its last run is still going."""
        due = record.next_due
        asked = record.run_now
        if not asked and (record.paused or due is None or due > now.timestamp()):
            return None
        if record.thread_id is not None and await self._still_going(record.thread_id):
            return None  # the schedule's one thread is still answering or waiting
        zone = zone_of(record)
        latest = next(iter(await self._store.schedules.runs(record.id, 1)), None)
        behind = ""
        if latest is not None and latest.started_at > now.timestamp() + CLOCK_SLACK:
            behind = "the clock is behind this schedule's last run (" + in_words(
                moment(latest.started_at), zone, now
            ) + ")"  # fmt: skip
        if asked:
            return await self._store.schedules.claim(
                record.id, now.timestamp(), missed=0, note=_joined("run now", behind),
                next_due=due, started_at=now.timestamp(),
            )  # fmt: skip
        assert due is not None
        rule = self._schedules.rule(record)
        count, last = due_times(rule, moment(due), now, zone, moment(record.created_at))
        if latest is not None and last.timestamp() <= latest.due_at:
            await self._ran_already(record, latest, now)
            return None
        missed = max(0, count - 1)
        note = ""
        if missed:
            note = f"missed {missed} run{'s' if missed != 1 else ''} since " + in_words(
                moment(due), zone, now
            )
        following = self._schedules.next_after(record, now)
        return await self._store.schedules.claim(
            record.id, last.timestamp(), missed=missed, note=_joined(note, behind),
            next_due=following.timestamp(), started_at=now.timestamp(),
        )  # fmt: skip

    async def _ran_already(self, record: ScheduleRecord, latest: RunRecord, now: datetime) -> None:
        """The due time the clock says has a run already (the clock went back): it is not
        run twice; the schedule waits for the first due time after that run, and says so."""
        zone = zone_of(record)
        following = self._schedules.next_after(record, max(now, moment(latest.due_at)))
        await self._store.schedules.set_next_due(record.id, following.timestamp())
        self.said.append(
            f"Schedule {record.short_id} did not run again: the clock went back to "
            f"{in_words(now, zone, now)}, before its run for "
            f"{in_words(moment(latest.due_at), zone, now)}; it runs next "
            f"{in_words(following, zone, now)}."
        )

    async def _still_going(self, thread_id: str) -> bool:
        if self._runs.is_running(thread_id):
            return True
        try:
            return bool(await self._runs.pending(thread_id))
        except ParleyError:
            return False

    async def _execute(self, record: ScheduleRecord, run: RunRecord) -> RunRecord:
        """Send the schedule's prompt on its thread and write how the run ended."""
        try:
            thread_id = await self._thread_for(record)
        except ParleyError as exc:
            return await self._finish(run, "failed", str(exc), None)
        await self._store.schedules.finish(run.id, "running", thread_id=thread_id)
        return await self._drive(
            run,
            thread_id,
            lambda: self._runs.send(thread_id, record.prompt, limits=record.limits),
        )

    async def _drive(
        self,
        run: RunRecord,
        thread_id: str,
        start: Callable[[], Awaitable[asyncio.Task[AgentState | None]]],
    ) -> RunRecord:
        heard = _Heard()

        def listen(event: WorkspaceEvent) -> None:
            if isinstance(event, Problem) and event.thread_id == thread_id:
                heard.problems.append(event)

        unsubscribe = self._events.subscribe(listen)
        try:
            task = await start()
            state: AgentState | None = await task
        except ParleyError as exc:
            return await self._finish(run, "failed", str(exc), thread_id)
        except Exception as exc:  # a run's failure is written on it, never lost
            log.exception("a scheduled run failed on thread %s", thread_id)
            return await self._finish(
                run, "failed", f"Something went wrong inside Parley ({type(exc).__name__}).",
                thread_id,
            )  # fmt: skip
        finally:
            unsubscribe()
        if heard.problems:
            return await self._finish(run, "failed", heard.problems[0].text, thread_id, state)
        return await self._ended(run, thread_id, state)

    async def _thread_for(self, record: ScheduleRecord) -> str:
        agent = await self._agents.by_id(record.agent_id)
        if agent is None:
            raise UserError(_GONE_AGENT)
        if record.thread_id is not None:
            thread = await self._store.get_thread(record.thread_id)
            if thread is None:
                raise UserError(
                    "The thread this schedule writes into is no longer here; give it "
                    "another thread or remove the schedule."
                )
            return thread.id
        thread = await self._threads.create(
            title=title_of(record.prompt), model=record.model, agent_id=agent.id
        )
        return thread.id

    async def _ended(self, run: RunRecord, thread_id: str, state: AgentState | None) -> RunRecord:
        """Write how the run stands from its thread's saved state."""
        if state is None:
            return await self._finish(run, "failed", "The run saved nothing.", thread_id)
        if state.is_interrupted():
            return await self._finish(
                run, "waiting", await self._waiting_sentence(thread_id), thread_id, state,
                finished=False,
            )  # fmt: skip
        last = state.context[-1] if state.context else None
        errors = [b.error for b in (last.content if last else []) if isinstance(b, ErrorBlock)]
        if errors:
            return await self._finish(run, "failed", errors[0], thread_id, state)
        if state.execution_meta.status == "stopped":
            return await self._finish(run, "stopped", "The run was stopped.", thread_id, state)
        return await self._finish(run, "done", "", thread_id, state)

    async def _waiting_sentence(self, thread_id: str) -> str:
        pauses = await self._runs.pending(thread_id)
        asks = [
            f"{request.agent or 'the agent'} asks to run {request.tool}"
            for pause in pauses
            if isinstance(pause, ApprovalNeeded)
            for request in pause.requests
        ]
        limits = [p.pause.text.rstrip(".") for p in pauses if isinstance(p, BudgetPaused)]
        what = "; ".join(asks) if asks else (limits[0] if limits else "a decision")
        return (
            f"Waiting for you: {what}. Answer in the window or with: "
            f"parley chat --thread {thread_id} --resume"
        )

    async def _finish(
        self,
        run: RunRecord,
        status: RunStatus,
        sentence: str,
        thread_id: str | None,
        state: AgentState | None = None,
        *,
        finished: bool = True,
    ) -> RunRecord:
        spent = state.execution_meta.spent if state is not None else {}
        written = await self._store.schedules.finish(
            run.id,
            status,
            sentence,
            thread_id=thread_id,
            tokens=int(spent.get("tokens", 0)),
            cost=float(spent.get("cost", 0.0)),
            finished_at=self.clock().timestamp() if finished else None,
        )
        if status == "waiting" and self.on_waiting is not None:
            self.on_waiting(written)
        return written

    async def _refresh_waiting(self) -> None:
        """A waiting run whose thread no longer waits (answered here or elsewhere) gets
        how it ended."""
        for run in await self._store.schedules.unfinished():
            if run.status != "waiting" or run.thread_id is None or run.id in self._tasks:
                continue
            if self._runs.is_running(run.thread_id) or await self._runs.pending(run.thread_id):
                continue
            if await self._runs.is_cut_off(run.thread_id):
                continue  # answered, then cut off: the window or the next resume goes on
            await self._ended(run, run.thread_id, await self._threads.saved_state(run.thread_id))

    async def _recover(self) -> None:
        """Runs left ``running`` by a runner that stopped (only a lock holder starts runs,
        so none of them runs now): a cut-off turn resumes from its last saved step; any
        other gets how it ended."""
        for run in await self._store.schedules.unfinished():
            if run.status != "running":
                continue
            thread_id = run.thread_id
            if thread_id is None or await self._store.get_thread(thread_id) is None:
                await self._finish(
                    run, "failed", "The runner stopped before this run began.", thread_id
                )
                continue
            if await self._runs.is_cut_off(thread_id):
                self._tasks[run.id] = asyncio.create_task(
                    self._drive(run, thread_id, partial(self._runs.resume_cut_off, thread_id))
                )
                continue
            await self._ended(run, thread_id, await self._threads.saved_state(thread_id))


def _due(record: ScheduleRecord, now: datetime) -> bool:
    return not record.paused and record.next_due is not None and record.next_due <= now.timestamp()


def _joined(*notes: str) -> str:
    return "; ".join(n for n in notes if n)


def clock_from(start: datetime | None) -> Clock:
    """The real clock, or one that starts at ``start`` and runs on from there."""
    import time

    if start is None:
        return lambda: datetime.now().astimezone()
    began = time.monotonic()
    return lambda: start + timedelta(seconds=time.monotonic() - began)
