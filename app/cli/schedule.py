"""``parley schedule``, ``parley runs`` and ``parley scheduler``: schedules set, listed and
changed in the terminal, their runs listed, and the runner without the window."""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any, TextIO

from app.cli.text import as_text, printable
from app.core.errors import UserError

if TYPE_CHECKING:
    from app.services.schedules.runner import ScheduleRunner
    from app.services.schedules.service import RunRecord, ScheduleRecord
    from app.services.workspace import Workspace

__all__ = ["add_parsers", "parse_now", "run_command"]

_LIMITS = (
    ("--max-model-calls", "max_model_calls", int),
    ("--max-tool-calls", "max_tool_calls", int),
    ("--max-tokens", "max_tokens", int),
    ("--max-cost", "max_cost", float),
)
_NOW_HELP = "the time it is, for scripts and tests (ISO 8601; without an offset, local time)"


def add_parsers(sub: Any, common: argparse.ArgumentParser) -> None:
    """Add ``schedule``, ``runs`` and ``scheduler`` to the ``parley`` subcommands."""
    schedule = sub.add_parser(
        "schedule", parents=[common], help="agents that run a prompt on their own at set times"
    )
    actions = schedule.add_subparsers(
        dest="schedule_action", metavar="{add,list,show,remove,pause,resume,run-now}"
    )
    add = actions.add_parser("add", parents=[common], help="set a schedule; prints its id")
    add.add_argument("prompt", metavar="PROMPT")
    add.add_argument("--agent", metavar="NAME", help="the agent that runs it (needed)")
    when = add.add_mutually_exclusive_group()
    when.add_argument(
        "--every", metavar="WHEN", help='"day 08:00", "weekdays 18:30", "monday 09:00", "2h", "30m"'
    )
    when.add_argument("--cron", metavar="EXPR", help='a cron expression, as "0 8 * * 1-5"')
    add.add_argument(
        "--thread", default="new", metavar="new|ID", help="a new thread each run, or this thread"
    )
    for flag, dest, kind in _LIMITS:
        add.add_argument(flag, dest=dest, type=kind, metavar="N", help=f"{dest} of each run")
    add.add_argument("--now", help=_NOW_HELP)
    listing = actions.add_parser("list", parents=[common], help="every schedule and its next run")
    listing.add_argument("--now", help=_NOW_HELP)
    for name, what in (
        ("show", "a schedule, its next three runs and its last runs"),
        ("remove", "remove a schedule (its runs and threads stay)"),
        ("pause", "pause a schedule"),
        ("resume", "set a paused schedule going again"),
        ("run-now", "run a schedule now, once"),
    ):
        action = actions.add_parser(name, parents=[common], help=what)
        action.add_argument("id", metavar="ID")
        if name in ("show", "resume"):
            action.add_argument("--now", help=_NOW_HELP)
    runs = sub.add_parser("runs", parents=[common], help="the runs of schedules, newest first")
    runs.add_argument("--schedule", metavar="ID", help="this schedule's runs only")
    runs.add_argument("--json", action="store_true", help="as JSON")
    scheduler = sub.add_parser(
        "scheduler", parents=[common], help="run the schedules without the window"
    )
    scheduler.add_argument(
        "action",
        nargs="?",
        choices=["install", "uninstall"],
        help="add or remove a systemd user service that runs the scheduler while you are logged in",
    )
    scheduler.add_argument("--once", action="store_true", help="run what is due, then exit")
    scheduler.add_argument("--now", help=_NOW_HELP)
    scheduler.add_argument(
        "--tools",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="offer the built-in tools (asking before each file call) and the MCP servers' "
        "tools, as parley chat --tools does (default: on)",
    )


def run_command(args: argparse.Namespace, out: TextIO, err: TextIO) -> int | None:
    """Run ``args.command`` if it is one of this module's; ``None`` when it is another."""
    if args.command == "schedule":
        return asyncio.run(_schedule(args, out, err))
    if args.command == "runs":
        return asyncio.run(_opened(args, out, err, _runs))
    if args.command == "scheduler":
        if args.action is not None:
            return _service_unit(args, out)
        return asyncio.run(_scheduler(args, out, err))
    return None


def parse_now(text: str | None) -> datetime | None:
    """``--now``: an ISO 8601 time (local when it has no offset), or ``None`` when not
    given; :class:`UserError` when it cannot be read."""
    if text is None:
        return None
    from app.services.schedules.service import local_zone

    try:
        when = datetime.fromisoformat(text.strip())
    except ValueError:
        raise UserError(
            f'--now "{as_text(text)[:40]}" is not a time: write it as 2026-12-03T08:00, or with '
            f"its offset, as 2026-12-03T08:00+01:00."
        ) from None
    return when if when.tzinfo is not None else when.replace(tzinfo=local_zone())


def _write(out: TextIO, text: str) -> None:
    out.write(printable(text, getattr(out, "encoding", None)))


async def _opened(
    args: argparse.Namespace,
    out: TextIO,
    err: TextIO,
    action: Callable[[Workspace, argparse.Namespace, TextIO, TextIO], Awaitable[int]],
) -> int:
    from app.services.workspace import Workspace

    workspace = await Workspace.open(args.data_dir)
    try:
        await workspace.agents.list()
        return await action(workspace, args, out, err)
    finally:
        await workspace.aclose()


async def _schedule(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    for name in ("prompt", "agent", "id", "every", "cron", "thread"):
        if isinstance(getattr(args, name, None), str):
            setattr(args, name, as_text(getattr(args, name)))
    action = getattr(args, "schedule_action", None) or "list"
    if action == "run-now":
        return await _run_now(args, out, err)
    return await _opened(args, out, err, _ACTIONS[action])


def _limits(args: argparse.Namespace) -> Any:
    from app.core.budget import BudgetLimits

    given = {dest: getattr(args, dest) for _, dest, _ in _LIMITS}
    for dest, value in given.items():
        if value is not None and value < 0:
            raise UserError(f"--{dest.replace('_', '-')} cannot be below 0.")
    return BudgetLimits(**{k: v for k, v in given.items() if v is not None})


async def _add(ws: Workspace, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if not args.agent:
        raise UserError("Say which agent runs the schedule: --agent NAME (see parley agents).")
    now = parse_now(args.now) or datetime.now().astimezone()
    record = await ws.schedules.add(
        args.agent,
        args.prompt,
        every=args.every,
        cron=args.cron,
        thread=args.thread,
        model=args.model,
        limits=_limits(args),
        now=now,
    )
    rule = ws.schedules.rule(record)
    _write(out, f"Schedule {record.short_id}: {rule.words} ({record.zone}).\n")
    _write(out, ws.schedules.next_runs(record, now) + "\n")
    return 0


async def _line(ws: Workspace, record: ScheduleRecord, now: datetime) -> str:
    from app.services.schedules.service import moment, zone_of
    from app.services.schedules.when import in_words

    state = "paused" if record.paused else "on"
    if record.paused or record.next_due is None:
        following = "not due"
    elif record.next_due <= now.timestamp():
        following = "due now"
    else:
        following = "next: " + in_words(moment(record.next_due), zone_of(record), now)
    prompt = " ".join(record.prompt.split())
    prompt = prompt if len(prompt) <= 50 else prompt[:49] + "…"
    agent = await ws.schedules.agent_name(record.agent_id)
    words = ws.schedules.rule(record).words
    return f'{record.short_id}  {state}  {agent}  {words}  {following}  "{prompt}"\n'


async def _list(ws: Workspace, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    records = await ws.schedules.list()
    if not records:
        out.write("No schedules. Add one with: parley schedule add --agent NAME --every WHEN\n")
    now = parse_now(args.now) or datetime.now().astimezone()
    for record in records:
        _write(out, await _line(ws, record, now))
    return 0


async def _show(ws: Workspace, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    record = await ws.schedules.get(args.id)
    now = parse_now(args.now) or datetime.now().astimezone()
    limits = record.limits.model_dump(exclude_none=True)
    into = f"thread {record.thread_id}" if record.thread_id else "a new thread each run"
    lines = [
        f"Schedule {record.id}",
        f"Agent: {await ws.schedules.agent_name(record.agent_id)}",
        f"When: {ws.schedules.rule(record).words} ({record.zone})",
        f"Into: {into}",
        f"Limits of each run: {', '.join(f'{k} {v}' for k, v in limits.items()) or 'none'}",
        f"State: {'paused' if record.paused else 'on'}",
        ws.schedules.next_runs(record, now),
        f"Prompt: {record.prompt}",
    ]
    _write(out, "\n".join(lines) + "\n")
    for run in await ws.schedules.runs(record.id, limit=5):
        _write(out, _run_line(run))
    return 0


async def _remove(ws: Workspace, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    record = await ws.schedules.remove(args.id)
    out.write(f"Removed schedule {record.short_id}; its runs and threads are kept.\n")
    return 0


async def _pause(ws: Workspace, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    record = await ws.schedules.pause(args.id)
    out.write(f"Paused schedule {record.short_id}.\n")
    return 0


async def _resume(ws: Workspace, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    now = parse_now(args.now) or datetime.now().astimezone()
    record = await ws.schedules.resume(args.id, now)
    _write(out, f"Schedule {record.short_id} is on. {ws.schedules.next_runs(record, now)}\n")
    return 0


def _run_line(run: RunRecord) -> str:
    started = datetime.fromtimestamp(run.started_at).astimezone().strftime("%Y-%m-%d %H:%M")
    parts = [f"{run.id:>4}  {started}  {run.schedule_id[:8]}  {run.status}"]
    if run.note:
        parts.append(f"({run.note})")
    parts.append(f"{run.tokens} tokens  ${run.cost:.4f}")
    if run.thread_id:
        parts.append(f"thread {run.thread_id}")
    line = "  ".join(parts) + "\n"
    return line + (f"      {run.sentence}\n" if run.sentence else "")


def _run_json(run: RunRecord) -> dict[str, Any]:
    def iso(when: float | None) -> str | None:
        return None if when is None else datetime.fromtimestamp(when).astimezone().isoformat()

    return {
        "id": run.id,
        "schedule": run.schedule_id,
        "due": iso(run.due_at),
        "started": iso(run.started_at),
        "finished": iso(run.finished_at),
        "status": run.status,
        "sentence": run.sentence,
        "note": run.note,
        "missed": run.missed,
        "thread": run.thread_id,
        "tokens": run.tokens,
        "cost": run.cost,
    }


async def _runs(ws: Workspace, args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    schedule = as_text(args.schedule) if args.schedule else None
    runs = await ws.schedules.runs(schedule)
    if args.json:
        out.write(json.dumps([_run_json(r) for r in runs], indent=2, ensure_ascii=False) + "\n")
        return 0
    if not runs:
        out.write("No runs yet.\n")
    for run in runs:
        _write(out, _run_line(run))
    return 0


_ACTIONS: dict[str, Callable[[Workspace, argparse.Namespace, TextIO, TextIO], Awaitable[int]]] = {
    "add": _add,
    "list": _list,
    "show": _show,
    "remove": _remove,
    "pause": _pause,
    "resume": _resume,
}


async def _as_runner(
    args: argparse.Namespace,
    out: TextIO,
    err: TextIO,
    body: Callable[[Workspace, ScheduleRunner], Awaitable[int]],
    taken: Callable[[str], int],
) -> int:
    """Open a session as the runner does (tools asking first, budget limits pausing), take
    the runner's lock and run ``body``; ``taken`` says what to do when another runner runs."""
    from app.cli.session import open_session
    from app.services.schedules.runner import clock_from

    clock = clock_from(parse_now(getattr(args, "now", None)))
    async with open_session(
        args.data_dir,
        args.model or "",
        interactive=False,
        tools=getattr(args, "tools", True),
        budget_pause=True,
    ) as session:
        runner = session.workspace.schedule_runner(clock)
        other = await runner.start()
        if other is not None:
            return taken(other.sentence())
        try:
            return await body(session.workspace, runner)
        finally:
            await session.workspace.runs.aclose()
            await runner.settle(within=5)
            runner.stop()


def _ran(runs: list[RunRecord], out: TextIO) -> None:
    for run in runs:
        note = f" ({run.note})" if run.note else ""
        thread = f" in thread {run.thread_id}" if run.thread_id else ""
        sentence = f" {run.sentence}" if run.sentence else ""
        _write(out, f"Schedule {run.schedule_id[:8]}: {run.status}{note}{thread}.{sentence}\n")


async def _scheduler(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    def taken(sentence: str) -> int:
        out.write(sentence + "\n")
        return 0

    async def once(ws: Workspace, runner: ScheduleRunner) -> int:
        await runner.look()
        _ran(await runner.wait(), out)
        for sentence in runner.said:
            _write(out, sentence + "\n")
        return 0

    async def serve(ws: Workspace, runner: ScheduleRunner) -> int:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        out.write(f"Running schedules (pid {_pid()}); stop with Ctrl-C.\n")
        out.flush()
        await runner.serve(stop)
        return 0

    return await _as_runner(args, out, err, once if args.once else serve, taken)


def _service_unit(args: argparse.Namespace, out: TextIO) -> int:
    """``parley scheduler install|uninstall``: write or remove the systemd user unit, and say
    how to start or stop it (systemctl is not called here)."""
    import shutil

    from app.services.locations import Locations
    from app.services.schedules.unit import (
        UNIT_NAME,
        install_unit,
        remove_unit,
        unit_path,
        unit_text,
    )

    path = unit_path()
    if args.action == "uninstall":
        if not remove_unit(path):
            _write(out, f"There is no scheduler service to remove ({path}).\n")
            return 0
        _write(out, f"Removed {path}.\n")
        out.write(f"If it was running, stop it with: systemctl --user disable --now {UNIT_NAME}\n")
        return 0
    data = Locations.resolve(args.data_dir).data
    replaced = install_unit(unit_text(data, args.model), path)
    _write(out, f"{'Replaced' if replaced else 'Wrote'} {path}.\n")
    start = f"systemctl --user daemon-reload && systemctl --user enable --now {UNIT_NAME}"
    if shutil.which("systemctl") is None:
        out.write(
            "systemctl is not found here: on a system run by systemd, start it with: "
            f"{start}; elsewhere, run parley scheduler from your session's startup.\n"
        )
    else:
        out.write(f"Start it now and at every login with: {start}\n")
    return 0


def _pid() -> int:
    import os

    return os.getpid()


async def _run_now(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from app.services.workspace import Workspace

    workspace = await Workspace.open(args.data_dir)
    try:
        record = await workspace.schedules.ask_run_now(args.id)
    finally:
        await workspace.aclose()

    def taken(sentence: str) -> int:
        who = sentence.removeprefix("Schedules are already run by another runner ")
        who = who.removesuffix("; this one stops.")
        out.write(f"Asked the runner {who} to run schedule {record.short_id} now.\n")
        return 0

    async def run(ws: Workspace, runner: ScheduleRunner) -> int:
        await runner.look(only=record.id)
        done = await runner.wait()
        _ran(done, out)
        if not done:
            out.write(f"Schedule {record.short_id} did not run: its last run is still going.\n")
        return 0

    return await _as_runner(args, out, err, run, taken)
