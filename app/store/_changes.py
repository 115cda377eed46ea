"""Turn a step's :class:`StateChanges` into row operations, checking them against the state.

An only-changes write must give exactly the state a full write would. The engine's changes are
trusted only as far as they can be checked cheaply: new ids must be the tail of the context,
counts must add up, and every replaced message must still sit between its neighbours' stored
positions (a message removed and added again in one step moved to the end). When a check
fails the caller writes the whole state instead, which is always correct.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from app.core.checkpoint.base import StateChanges
from app.core.state.message import Message

__all__ = ["Head", "Live", "Plan", "head_of", "plan_changes"]

_CHUNK = 500


class Head(NamedTuple):
    """Where a thread stands: its latest checkpoint and the bookkeeping of its segment."""

    head_id: str | None
    seq: int
    segment: int
    next_position: int
    message_count: int


class Live(NamedTuple):
    """The current version of one message row."""

    rowid: int
    position: int
    has_text: bool


@dataclass
class Plan:
    """What an only-changes write does: rows to close and versions to add."""

    close: list[Live] = field(default_factory=list)
    close_all: bool = False
    replace: list[tuple[int, int]] = field(default_factory=list)  # (index in state, position)
    append: list[int] = field(default_factory=list)  # indices in state, in order


def head_of(conn: sqlite3.Connection, thread_id: str) -> Head | None:
    """Return the thread's :class:`Head`, or ``None`` when there is no such thread."""
    row = conn.execute(
        "SELECT head_id, head_seq, head_segment, next_position, message_count "
        "FROM threads WHERE id = ?",
        (thread_id,),
    ).fetchone()
    return Head(*row) if row else None


def _locate(context: Sequence[Message], ids: set[str | int]) -> dict[str | int, int]:
    """Find where each id sits in ``context``, scanning from the end (recent ids first)."""
    found: dict[str | int, int] = {}
    for i in range(len(context) - 1, -1, -1):
        mid = context[i].message_id
        if mid in ids and mid not in found:
            found[mid] = i
            if len(found) == len(ids):
                break
    return found


def _live_rows(
    conn: sqlite3.Connection, thread_id: str, segment: int, ids: list[str | int]
) -> dict[str | int, Live] | None:
    live: dict[str | int, Live] = {}
    for start in range(0, len(ids), _CHUNK):
        chunk = ids[start : start + _CHUNK]
        marks = ",".join("?" * len(chunk))
        for rowid, mid, position, has_text in conn.execute(
            "SELECT id, message_id, position, text != '' FROM messages WHERE thread_id = ? AND "
            f"segment = ? AND valid_to IS NULL AND message_id IN ({marks})",
            (thread_id, segment, *chunk),
        ):
            if mid in live:
                return None  # duplicate ids: let a full write sort it out
            live[mid] = Live(rowid, position, bool(has_text))
    return live


def _neighbours_ok(
    conn: sqlite3.Connection,
    thread_id: str,
    segment: int,
    context: Sequence[Message],
    plan: Plan,
    live: dict[str | int, Live],
    tail_start: int,
) -> bool:
    """Whether every replaced message still lies between its neighbours' positions."""
    wanted = {
        context[j].message_id
        for i, _ in plan.replace
        for j in (i - 1, i + 1)
        if 0 <= j < tail_start and context[j].message_id not in live
    }
    known = dict(live)
    if wanted:
        found = _live_rows(conn, thread_id, segment, list(wanted))
        if found is None or len(found) != len(wanted):
            return False
        known.update(found)
    for i, pos in plan.replace:
        if i > 0 and known[context[i - 1].message_id].position >= pos:
            return False
        if i + 1 < tail_start and known[context[i + 1].message_id].position <= pos:
            return False
    return True


def plan_changes(
    conn: sqlite3.Connection,
    thread_id: str,
    head: Head,
    context: Sequence[Message],
    changes: StateChanges,
) -> Plan | None:
    """Work out an only-changes write of ``context``, or ``None`` when ``changes`` cannot be
    shown to match it."""
    n = len(context)
    if changes.cleared:
        return Plan(close_all=True, append=list(range(n)))
    removed = set(changes.removed)
    touched = list(dict.fromkeys([*changes.upserted, *changes.removed]))
    live = _live_rows(conn, thread_id, head.segment, touched) if touched else {}
    if live is None:
        return None
    where = _locate(context, set(touched))
    plan = Plan()
    for mid in touched:
        row, idx = live.get(mid), where.get(mid)
        if row is not None:
            plan.close.append(row)
            if idx is not None and mid in removed:
                plan.append.append(idx)  # removed, then added again: it moved to the end
            elif idx is not None:
                plan.replace.append((idx, row.position))
        elif idx is not None:
            plan.append.append(idx)
    plan.append.sort()
    k = len(plan.append)
    if plan.append != list(range(n - k, n)):
        return None
    if head.message_count - (len(plan.close) - len(plan.replace)) + k != n:
        return None
    if any(i >= n - k for i, _ in plan.replace):
        return None
    if plan.replace and not _neighbours_ok(
        conn, thread_id, head.segment, context, plan, live, n - k
    ):
        return None
    return plan
