"""Schedules and their runs: kept, changed and claimed (on the store thread).

A run is claimed in one transaction with the schedule's next due time, so a due time is
run once: ``UNIQUE (schedule_id, due_at)`` refuses a second claim of it, and the partial
index ``schedule_runs_one_running`` a second run of one schedule while one is running.
"""

from __future__ import annotations

import json
import re
import sqlite3
import time
import uuid
from collections.abc import Sequence
from typing import Any

import sqlite_utils

from app.core.budget import BudgetLimits
from app.core.errors import UserError
from app.store._db import write_tx
from app.store.schedule_records import RunRecord, ScheduleRecord
from app.text.hidden_chars import escape_hidden

__all__ = [
    "add",
    "claim",
    "finish",
    "get",
    "list_runs",
    "list_schedules",
    "remove",
    "resolve",
    "run_threads",
    "set_next_due",
    "set_paused",
    "set_run_now",
    "unfinished",
]

_COLUMNS = (
    "id, agent_id, prompt, kind, rule, zone, thread_id, model, limits, paused, run_now, "
    "created_at, next_due"
)
_RUN_COLUMNS = (
    "id, schedule_id, due_at, started_at, finished_at, status, sentence, note, missed, "
    "thread_id, tokens, cost"
)
_HEX = re.compile(r"[0-9a-f]{4,32}")


def _kept_here(db: sqlite_utils.Database) -> bool:
    """Whether the file has schedules at all (one from before them, opened read-only, has
    none)."""
    return bool(
        db.conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schedules'"
        ).fetchone()
    )


def _schedule(row: Sequence[Any]) -> ScheduleRecord:
    try:
        limits = BudgetLimits.model_validate(json.loads(row[8]))
    except ValueError:
        limits = BudgetLimits()
    return ScheduleRecord(
        id=row[0],
        agent_id=row[1],
        prompt=row[2],
        kind=row[3],
        rule=row[4],
        zone=row[5],
        thread_id=row[6],
        model=row[7],
        limits=limits,
        paused=bool(row[9]),
        run_now=bool(row[10]),
        created_at=float(row[11]),
        next_due=None if row[12] is None else float(row[12]),
    )


def _run(row: Sequence[Any]) -> RunRecord:
    return RunRecord(
        id=int(row[0]),
        schedule_id=row[1],
        due_at=float(row[2]),
        started_at=float(row[3]),
        finished_at=None if row[4] is None else float(row[4]),
        status=row[5],
        sentence=row[6],
        note=row[7],
        missed=int(row[8]),
        thread_id=row[9],
        tokens=int(row[10]),
        cost=float(row[11]),
    )


def add(db: sqlite_utils.Database, record: ScheduleRecord) -> ScheduleRecord:
    """Keep ``record`` (an empty id gets a new one); :class:`UserError` when its agent is
    not here."""
    schedule_id = record.id or uuid.uuid4().hex
    with write_tx(db) as conn:
        if not conn.execute("SELECT 1 FROM agents WHERE id = ?", (record.agent_id,)).fetchone():
            raise UserError("That schedule cannot be kept: its agent is no longer here.")
        conn.execute(
            f"INSERT INTO schedules ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                schedule_id,
                record.agent_id,
                record.prompt,
                record.kind,
                record.rule,
                record.zone,
                record.thread_id,
                record.model,
                record.limits.model_dump_json(exclude_none=True),
                int(record.paused),
                int(record.run_now),
                record.created_at or time.time(),
                record.next_due,
            ),
        )
        row = conn.execute(
            f"SELECT {_COLUMNS} FROM schedules WHERE id = ?", (schedule_id,)
        ).fetchone()
    return _schedule(row)


def get(db: sqlite_utils.Database, schedule_id: str) -> ScheduleRecord | None:
    """The schedule with ``schedule_id``, or ``None``."""
    if not _kept_here(db):
        return None
    row = db.conn.execute(
        f"SELECT {_COLUMNS} FROM schedules WHERE id = ?", (schedule_id,)
    ).fetchone()
    return _schedule(row) if row else None


def resolve(db: sqlite_utils.Database, prefix: str) -> ScheduleRecord:
    """The one schedule whose id starts with ``prefix`` (at least 4 characters); a
    :class:`UserError` saying why when there is none or more than one."""
    key = prefix.strip().lower()
    if not _HEX.fullmatch(key):
        raise UserError(
            f"{escape_hidden(prefix)[:40]!r} is not a schedule's id; see parley schedule list"
        )
    rows = (
        db.conn.execute(
            f"SELECT {_COLUMNS} FROM schedules WHERE id >= ? AND id < ? ORDER BY id LIMIT 2",
            (key, key + "g"),
        ).fetchall()
        if _kept_here(db)
        else []
    )
    if not rows:
        raise UserError(f"there is no schedule {key}; see parley schedule list")
    if len(rows) > 1:
        raise UserError(f"more than one schedule's id starts with {key}; give more of it")
    return _schedule(rows[0])


def list_schedules(db: sqlite_utils.Database) -> list[ScheduleRecord]:
    """Every schedule, oldest first."""
    if not _kept_here(db):
        return []
    rows = db.conn.execute(f"SELECT {_COLUMNS} FROM schedules ORDER BY created_at, id")
    return [_schedule(r) for r in rows.fetchall()]


def remove(db: sqlite_utils.Database, schedule_id: str) -> bool:
    """Remove the schedule (its runs stay in the list); whether it was there."""
    with write_tx(db) as conn:
        return conn.execute("DELETE FROM schedules WHERE id = ?", (schedule_id,)).rowcount > 0


def set_paused(
    db: sqlite_utils.Database, schedule_id: str, paused: bool, next_due: float | None
) -> bool:
    """Pause the schedule or set it going again from ``next_due``; whether it is there."""
    with write_tx(db) as conn:
        return (
            conn.execute(
                "UPDATE schedules SET paused = ?, next_due = ? WHERE id = ?",
                (int(paused), next_due, schedule_id),
            ).rowcount
            > 0
        )


def set_next_due(db: sqlite_utils.Database, schedule_id: str, next_due: float | None) -> None:
    """Move the schedule's next due time (a run that is still going let one pass)."""
    with write_tx(db) as conn:
        conn.execute("UPDATE schedules SET next_due = ? WHERE id = ?", (next_due, schedule_id))


def set_run_now(db: sqlite_utils.Database, schedule_id: str) -> bool:
    """Ask the runner to run the schedule at its next look; whether it is there."""
    with write_tx(db) as conn:
        return (
            conn.execute("UPDATE schedules SET run_now = 1 WHERE id = ?", (schedule_id,)).rowcount
            > 0
        )


def claim(
    db: sqlite_utils.Database,
    schedule_id: str,
    due_at: float,
    missed: int,
    note: str,
    next_due: float | None,
    started_at: float,
) -> RunRecord | None:
    """Start a run of the schedule for ``due_at`` and move its next due time to
    ``next_due``, in one transaction; ``None`` (nothing changed) when that due time has a
    run already or one of the schedule's runs is still running."""
    try:
        with write_tx(db) as conn:
            cur = conn.execute(
                "INSERT INTO schedule_runs (schedule_id, due_at, started_at, status, note,"
                " missed) VALUES (?, ?, ?, 'running', ?, ?)",
                (schedule_id, due_at, started_at, note, missed),
            )
            conn.execute(
                "UPDATE schedules SET next_due = ?, run_now = 0 WHERE id = ?",
                (next_due, schedule_id),
            )
            row = conn.execute(
                f"SELECT {_RUN_COLUMNS} FROM schedule_runs WHERE id = ?", (cur.lastrowid,)
            ).fetchone()
    except sqlite3.IntegrityError:
        return None
    return _run(row)


def finish(
    db: sqlite_utils.Database,
    run_id: int,
    status: str,
    sentence: str,
    thread_id: str | None,
    tokens: int,
    cost: float,
    finished_at: float | None,
) -> RunRecord:
    """Say how the run is now: its status, sentence, thread and what it spent."""
    with write_tx(db) as conn:
        conn.execute(
            "UPDATE schedule_runs SET status = ?, sentence = ?, thread_id = ?, tokens = ?,"
            " cost = ?, finished_at = ? WHERE id = ?",
            (status, sentence, thread_id, tokens, cost, finished_at, run_id),
        )
        row = conn.execute(
            f"SELECT {_RUN_COLUMNS} FROM schedule_runs WHERE id = ?", (run_id,)
        ).fetchone()
    return _run(row)


def list_runs(db: sqlite_utils.Database, schedule_id: str | None, limit: int) -> list[RunRecord]:
    """The newest ``limit`` runs (of ``schedule_id`` only, when given), newest first."""
    if not _kept_here(db):
        return []
    if schedule_id is None:
        rows = db.conn.execute(
            f"SELECT {_RUN_COLUMNS} FROM schedule_runs ORDER BY started_at DESC, id DESC LIMIT ?",
            (limit,),
        )
    else:
        rows = db.conn.execute(
            f"SELECT {_RUN_COLUMNS} FROM schedule_runs WHERE schedule_id = ?"
            " ORDER BY started_at DESC, id DESC LIMIT ?",
            (schedule_id, limit),
        )
    return [_run(r) for r in rows.fetchall()]


def unfinished(db: sqlite_utils.Database) -> list[RunRecord]:
    """The runs still running or waiting, oldest first."""
    if not _kept_here(db):
        return []
    rows = db.conn.execute(
        f"SELECT {_RUN_COLUMNS} FROM schedule_runs WHERE status IN ('running', 'waiting')"
        " ORDER BY started_at, id"
    )
    return [_run(r) for r in rows.fetchall()]


def run_threads(db: sqlite_utils.Database) -> set[str]:
    """The threads scheduled runs wrote into."""
    if not _kept_here(db):
        return set()
    rows = db.conn.execute(
        "SELECT DISTINCT thread_id FROM schedule_runs WHERE thread_id IS NOT NULL"
    )
    return {str(r[0]) for r in rows.fetchall()}
