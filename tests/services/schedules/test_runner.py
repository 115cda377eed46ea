"""The runner with a controlled clock, on a real store and a scripted model: one run per due
time, missed due times run once with a note, a run that needs approval waits and goes on
once answered, a budget pause waits the same way, one runner at a time, and a deleted agent
is one sentence on the run."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from app.core.budget import BudgetLimits
from app.core.models import ScriptedChatModel
from app.core.tools import ApprovalDecision, answer_requests, tool
from app.services.agents.model import Agent
from app.services.schedules.runner import ScheduleRunner
from app.services.settings import AppSettings
from app.services.workspace import Workspace

BERLIN = ZoneInfo("Europe/Berlin")
CALLS: list[str] = []


@tool(requires_approval=True)
def close_ticket(ticket_id: str) -> str:
    """Close a ticket."""
    CALLS.append(ticket_id)
    return f"closed {ticket_id}"


@dataclass
class Approver:
    """Gives the decisions it was made with."""

    decisions: list[ApprovalDecision]

    async def decide(self, requests: Any) -> list[ApprovalDecision]:
        return self.decisions


@dataclass
class Clock:
    """A clock the test moves."""

    now: datetime

    def __call__(self) -> datetime:
        return self.now


@dataclass
class Setup:
    ws: Workspace
    clock: Clock
    runner: ScheduleRunner


def _workspace(tmp_path: Path, replies: list[Any]) -> Callable[[], Any]:
    model = ScriptedChatModel(replies)

    async def open_it() -> Workspace:
        ws = await Workspace.open(
            tmp_path,
            resolve_model=lambda spec: model,
            secret_resolver=lambda ref: "",
            tools=[close_ticket],
        )
        ws.settings.use(AppSettings(default_model="scripted:a"))
        ws.schedules.zone = BERLIN
        return ws

    return open_it


@pytest.fixture
async def setup(tmp_path: Path, request: pytest.FixtureRequest) -> AsyncIterator[Setup]:
    usage = {"prompt_tokens": 90, "completion_tokens": 30, "total_tokens": 120}
    replies = getattr(request, "param", None) or [
        {"text": f"Report {n}.", "usage": usage} for n in range(1, 6)
    ]
    ws = await _workspace(tmp_path, replies)()
    clock = Clock(datetime(2026, 11, 30, 7, 0, tzinfo=BERLIN))
    runner = ws.schedule_runner(clock)
    assert await runner.start() is None
    try:
        yield Setup(ws, clock, runner)
    finally:
        runner.stop()
        await ws.aclose()


async def _texts(ws: Workspace, thread_id: str | None) -> list[str]:
    assert thread_id is not None
    return [m.text() for m in (await ws.threads.read_messages(thread_id)).messages]


async def test_a_schedule_runs_once_per_due_time(setup: Setup) -> None:
    ws, clock, runner = setup.ws, setup.clock, setup.runner
    made = await ws.schedules.add("Parley", "Morning report", every="day 08:00", now=clock.now)
    assert await runner.look() == []  # 07:00: not due
    clock.now = datetime(2026, 11, 30, 8, 0, 20, tzinfo=BERLIN)
    assert len(await runner.look()) == 1
    assert await runner.look() == []  # the same due time is not run again
    (run,) = await runner.wait()
    assert (run.status, run.missed, run.note, run.tokens) == ("done", 0, "", 120)
    assert await _texts(ws, run.thread_id) == ["Morning report", "Report 1."]
    kept = await ws.schedules.get(made.id)
    assert kept.next_due == datetime(2026, 12, 1, 8, tzinfo=BERLIN).timestamp()


async def test_missed_due_times_run_once_with_a_note(setup: Setup) -> None:
    ws, clock, runner = setup.ws, setup.clock, setup.runner
    await ws.schedules.add("Parley", "Morning report", every="day 08:00", now=clock.now)
    clock.now = datetime(2026, 12, 3, 9, 30, tzinfo=BERLIN)  # the computer was off
    assert len(await runner.look()) == 1
    (run,) = await runner.wait()
    assert run.status == "done"
    assert run.missed == 3
    assert run.note == "missed 3 runs since Monday 30 November at 08:00 CET"
    assert run.due_at == datetime(2026, 12, 3, 8, tzinfo=BERLIN).timestamp()
    assert await runner.look() == []
    assert len(await ws.schedules.runs()) == 1


@pytest.mark.parametrize(
    "setup",
    [
        [
            {"tool_calls": [{"name": "close_ticket", "args": {"ticket_id": "T-7"}, "id": "c1"}]},
            "Closed it.",
        ]
    ],
    indirect=True,
)
async def test_a_run_needing_approval_waits_and_goes_on_when_answered(setup: Setup) -> None:
    ws, clock, runner = setup.ws, setup.clock, setup.runner
    CALLS.clear()
    made = await ws.schedules.add("Parley", "Close T-7", every="30m", now=clock.now)
    clock.now = datetime(2026, 11, 30, 7, 31, tzinfo=BERLIN)
    await runner.look()
    (run,) = await runner.wait()
    assert run.status == "waiting" and CALLS == []
    assert "Waiting for you: the agent asks to run close_ticket." in run.sentence
    assert f"parley chat --thread {run.thread_id} --resume" in run.sentence
    assert run.thread_id is not None
    (pause,) = await ws.runs.pending_approvals(run.thread_id)
    approve = [ApprovalDecision(call_id=r.call_id, decision="approve") for r in pause.requests]
    answer = await answer_requests(Approver(approve), pause.requests)
    await (await ws.runs.answer(run.thread_id, {pause.interrupt_id: answer}))
    await runner.look()
    (after,) = [r for r in await ws.schedules.runs(made.id) if r.id == run.id]
    assert after.status == "done" and CALLS == ["T-7"]
    assert (await _texts(ws, run.thread_id))[-1] == "Closed it."


@pytest.mark.parametrize(
    "setup",
    [[{"tool_calls": [{"name": "no_such_tool", "args": {}, "id": "c1"}]}, "Finished."]],
    indirect=True,
)
async def test_a_run_at_its_budget_waits_for_a_raise(setup: Setup) -> None:
    ws, clock, runner = setup.ws, setup.clock, setup.runner
    await ws.schedules.add(
        "Parley", "Go", every="1h", now=clock.now, limits=BudgetLimits(max_model_calls=1)
    )
    clock.now = datetime(2026, 11, 30, 8, 1, tzinfo=BERLIN)
    await runner.look()
    (run,) = await runner.wait()
    assert run.status == "waiting"
    assert "model-call budget (1). Answer" in run.sentence and run.sentence.startswith(
        "Waiting for you:"
    )


async def test_a_removed_agent_is_one_sentence_on_the_run(setup: Setup) -> None:
    ws, clock, runner = setup.ws, setup.clock, setup.runner
    helper = await ws.agents.add(Agent(name="Helper", instructions="Help."))
    await ws.schedules.add("Helper", "Hi", every="day 08:00", now=clock.now)
    await ws.agents.remove(helper.id)
    clock.now = datetime(2026, 11, 30, 8, 0, 1, tzinfo=BERLIN)
    await runner.look()
    (run,) = await runner.wait()
    assert (run.status, run.sentence) == (
        "failed",
        "The schedule's agent is no longer here; give the schedule another agent or remove it.",
    )
    assert run.thread_id is None and await ws.threads.list_all() == []


async def test_a_second_runner_is_told_which_one_runs(setup: Setup, tmp_path: Path) -> None:
    other = await _workspace(tmp_path, [])()
    try:
        taken = await other.schedule_runner(setup.clock).start()
        assert taken is not None
        assert taken.sentence().startswith("Schedules are already run by another runner (pid ")
        assert "started 2026-11-30T07:00:00+01:00" in taken.sentence()
    finally:
        await other.aclose()


async def test_run_now_runs_a_paused_schedule_once(setup: Setup) -> None:
    ws, clock, runner = setup.ws, setup.clock, setup.runner
    made = await ws.schedules.add("Parley", "Now please", every="monday 09:00", now=clock.now)
    await ws.schedules.pause(made.id)
    await ws.schedules.ask_run_now(made.id)
    await runner.look()
    (run,) = await runner.wait()
    assert (run.status, run.note) == ("done", "run now")
    assert await runner.look() == []
    assert (await ws.schedules.get(made.id)).paused


@pytest.mark.parametrize(
    "setup",
    [
        [
            {"tool_calls": [{"name": "close_ticket", "args": {"ticket_id": "T-8"}, "id": "c1"}]},
            "Closed.",
        ]
    ],
    indirect=True,
)
async def test_a_schedule_into_one_thread_waits_while_that_thread_waits(setup: Setup) -> None:
    ws, clock, runner = setup.ws, setup.clock, setup.runner
    thread = await ws.threads.create(title="Tickets")
    made = await ws.schedules.add(
        "Parley", "Close T-8", every="30m", thread=thread.id, now=clock.now
    )
    clock.now = datetime(2026, 11, 30, 7, 31, tzinfo=BERLIN)
    await runner.look()
    (run,) = await runner.wait()
    assert (run.status, run.thread_id) == ("waiting", thread.id)
    clock.now = datetime(2026, 11, 30, 8, 31, tzinfo=BERLIN)  # two more due times pass
    assert await runner.look() == []  # the thread still waits: its approval is not dropped
    assert len(await ws.runs.pending_approvals(thread.id)) == 1
    assert [r.id for r in await ws.schedules.runs(made.id)] == [run.id]


async def test_the_lock_file_is_readable_by_its_owner_alone(setup: Setup) -> None:
    from tests.file_modes import mode

    assert mode(setup.runner.lock.path) == "0o600"


async def test_a_clock_that_went_back_does_not_run_a_due_time_twice(setup: Setup) -> None:
    ws, clock, runner = setup.ws, setup.clock, setup.runner
    made = await ws.schedules.add("Parley", "Morning report", every="day 08:00", now=clock.now)
    clock.now = datetime(2026, 11, 30, 8, 0, 20, tzinfo=BERLIN)
    await runner.look()
    await runner.wait()
    await ws.schedules.pause(made.id)
    clock.now = datetime(2026, 11, 29, 9, 0, tzinfo=BERLIN)  # the clock went back a day
    await ws.schedules.resume(made.id, now=clock.now)  # due again at Monday 08:00
    clock.now = datetime(2026, 11, 30, 8, 5, tzinfo=BERLIN)
    assert await runner.look() == []
    assert runner.said == [
        f"Schedule {made.short_id} did not run again: the clock went back to Monday 30 "
        "November at 08:05 CET, before its run for Monday 30 November at 08:00 CET; it runs "
        "next Tuesday 1 December at 08:00 CET."
    ]
    assert len(await ws.schedules.runs(made.id)) == 1
    clock.now = datetime(2026, 12, 1, 8, 0, 5, tzinfo=BERLIN)
    assert len(await runner.look()) == 1
    await runner.wait()


async def test_a_run_while_the_clock_is_behind_says_so(setup: Setup) -> None:
    ws, clock, runner = setup.ws, setup.clock, setup.runner
    made = await ws.schedules.add("Parley", "Morning report", every="day 08:00", now=clock.now)
    clock.now = datetime(2026, 11, 30, 8, 0, 20, tzinfo=BERLIN)
    await runner.look()
    await runner.wait()
    clock.now = datetime(2026, 11, 30, 6, 0, tzinfo=BERLIN)  # two hours back
    await ws.schedules.ask_run_now(made.id)
    await runner.look()
    (run,) = await runner.wait()
    assert run.note == (
        "run now; the clock is behind this schedule's last run (Monday 30 November at 08:00 CET)"
    )


async def test_a_serving_runner_runs_a_schedule_added_meanwhile(
    setup: Setup, tmp_path: Path
) -> None:
    import asyncio

    ws, clock, runner = setup.ws, setup.clock, setup.runner
    stop = asyncio.Event()
    serving = asyncio.create_task(runner.serve(stop, longest=3600, poll=0.05))
    try:
        await asyncio.sleep(0.2)
        made = await ws.schedules.add("Parley", "Here", every="day 08:00", now=clock.now)
        await ws.schedules.ask_run_now(made.id)  # woken in this process
        for _ in range(200):
            if await ws.schedules.runs(made.id):
                break
            await asyncio.sleep(0.05)
        other = await _workspace(tmp_path, [])()  # another process's writes wake it too
        try:
            later = await other.schedules.add("Parley", "There", every="2h", now=clock.now)
            await other.schedules.ask_run_now(later.id)
        finally:
            await other.aclose()
        for _ in range(200):
            if await ws.schedules.runs(later.id):
                break
            await asyncio.sleep(0.05)
        clock.now = datetime(2026, 11, 30, 8, 0, 30, tzinfo=BERLIN)  # the due time comes
        for _ in range(200):
            if len(await ws.schedules.runs(made.id)) == 2:
                break
            await asyncio.sleep(0.05)
    finally:
        stop.set()
        await serving
    await runner.wait()
    assert [r.note for r in await ws.schedules.runs(made.id)] == ["", "run now"]
    assert [r.note for r in await ws.schedules.runs(later.id)] == ["run now"]


class _Held:
    """A scripted model whose first answer waits until ``gate`` is set."""

    def __init__(self) -> None:
        self.model = ScriptedChatModel(["First.", "Second."])
        self.gate: Any = None

    @property
    def info(self) -> Any:
        return self.model.info

    async def agenerate(self, messages: Any, **options: Any) -> Any:
        await self.gate.wait()
        return await self.model.agenerate(messages, **options)

    async def astream(self, messages: Any, **options: Any) -> Any:
        await self.gate.wait()
        async for chunk in self.model.astream(messages, **options):
            yield chunk


async def test_a_due_time_passed_while_the_last_run_goes_on_costs_no_looks(
    tmp_path: Path,
) -> None:
    import asyncio

    held = _Held()
    held.gate = asyncio.Event()
    ws = await Workspace.open(
        tmp_path, resolve_model=lambda spec: held, secret_resolver=lambda ref: ""
    )
    ws.settings.use(AppSettings(default_model="scripted:a"))
    clock = Clock(datetime(2026, 11, 30, 7, 0, tzinfo=BERLIN))
    runner = ws.schedule_runner(clock)
    assert await runner.start() is None
    looks: list[int] = []
    look = runner.look

    async def counted(only: str | None = None) -> Any:
        looks.append(1)
        return await look(only)

    runner.look = counted  # type: ignore[method-assign]
    stop = asyncio.Event()
    try:
        made = await ws.schedules.add("Parley", "Long job", every="1m", now=clock.now)
        clock.now = datetime(2026, 11, 30, 7, 1, 5, tzinfo=BERLIN)
        serving = asyncio.create_task(runner.serve(stop, longest=3600, poll=0.02))
        for _ in range(200):
            if await ws.schedules.runs(made.id):
                break
            await asyncio.sleep(0.02)
        clock.now = datetime(2026, 11, 30, 7, 3, 5, tzinfo=BERLIN)  # due again, still going
        await asyncio.sleep(0.3)
        settled = len(looks)
        await asyncio.sleep(0.5)  # 25 polls: the due time passed is not looked at again
        assert len(looks) == settled
        held.gate.set()  # the run ends: its write wakes the runner, which runs it again
        for _ in range(200):
            if len(await ws.schedules.runs(made.id)) == 2:
                break
            await asyncio.sleep(0.02)
        assert len(await ws.schedules.runs(made.id)) == 2
    finally:
        stop.set()
        await serving
        await runner.wait()
        runner.stop()
        await ws.aclose()
