"""The scheduled runs that wait for you: each run paused on an approval or at a budget limit,
which agent asks what, and how to answer it (the same answer a paused thread takes in the
window or from ``parley chat --thread ID --resume``). Read from the store, so a run that
waited before a restart, or in another runner, is listed too."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from app.core.errors import ParleyError
from app.core.state import AgentState
from app.core.tools import ApprovalDecision, ApprovalRequest, answer_requests
from app.services.events import ApprovalNeeded, BudgetPaused
from app.services.runs import RunService
from app.services.schedules.service import ScheduleService
from app.store import RunRecord, ScheduleRecord
from app.text.hidden_chars import escape_hidden

__all__ = ["Answer", "Waiting", "answer_start", "waiting_runs"]

Answer = Callable[[], Awaitable[asyncio.Task[AgentState | None]]]
"""Starts a waiting run again with its answer (the turn's task)."""

_ARGS_SHOWN = 120
"""The most characters of a call's arguments a waiting run's line shows."""


@dataclass(frozen=True, slots=True)
class Waiting:
    """One run waiting for you: the run, its schedule (``None`` once removed), what it waits
    on, and who asks what in one sentence (``asks``)."""

    run: RunRecord
    schedule: ScheduleRecord | None
    pause: ApprovalNeeded | BudgetPaused
    asks: str

    @property
    def thread_id(self) -> str:
        """The run's thread."""
        return self.pause.thread_id


def _args(request: ApprovalRequest) -> str:
    parts = [f"{k}: {json.dumps(v, ensure_ascii=False)}" for k, v in request.args.items()]
    line = escape_hidden(" ".join(", ".join(parts).split()))
    return line if len(line) <= _ARGS_SHOWN else line[: _ARGS_SHOWN - 1] + "…"


def _asks(pause: ApprovalNeeded | BudgetPaused, agent: str) -> str:
    if isinstance(pause, BudgetPaused):
        who = pause.pause.agent or agent
        return f"{who} stopped at a limit: {pause.pause.text}"
    calls = []
    for request in pause.requests:
        args = _args(request)
        calls.append(f"{request.tool} ({args})" if args else request.tool)
    who = next((r.agent for r in pause.requests if r.agent), None) or agent
    return f"{who} asks to run {' and '.join(calls)}."


async def waiting_runs(schedules: ScheduleService, runs: RunService) -> list[Waiting]:
    """Every scheduled run that waits for you now, oldest first, with what it asks."""
    found: list[Waiting] = []
    for run in await schedules.unfinished():
        if run.status != "waiting" or run.thread_id is None or runs.is_running(run.thread_id):
            continue
        try:
            pauses = await runs.pending(run.thread_id)
        except ParleyError:
            continue
        schedule = await schedules.by_id(run.schedule_id)
        agent = await schedules.agent_name(schedule.agent_id) if schedule else "The agent"
        for pause in pauses:
            if isinstance(pause, ApprovalNeeded | BudgetPaused):
                found.append(Waiting(run, schedule, pause, _asks(pause, agent)))
    return found


@dataclass
class _Given:
    decisions: list[ApprovalDecision]

    async def decide(self, requests: object) -> list[ApprovalDecision]:
        return self.decisions


def answer_start(runs: RunService, item: Waiting, approve: bool) -> Answer:
    """How to answer ``item``: approve (or deny) every call it asks about, or go on past the
    budget limit to the limit it suggests (or stop there)."""
    pause = item.pause

    async def start() -> asyncio.Task[AgentState | None]:
        if isinstance(pause, BudgetPaused):
            to = pause.pause.suggested_to if approve else None
            return await runs.answer_budget(pause.thread_id, pause.interrupt_id, to)
        decision = "approve" if approve else "deny"
        given = _Given(
            [ApprovalDecision(call_id=r.call_id, decision=decision) for r in pause.requests]
        )
        answer = await answer_requests(given, pause.requests)
        return await runs.answer(pause.thread_id, {pause.interrupt_id: answer})

    return start
