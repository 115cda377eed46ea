"""The approval audit log and "always allow" rules (run on the store thread).

Only the tool name, a SHA-256 fingerprint of the arguments, the decision and the user's reason
are kept: never the arguments themselves, so a secret passed to a tool cannot land here.
"""

from __future__ import annotations

import sqlite3
import time
from typing import Any, cast, get_args

import sqlite_utils

from app.core.errors import UserError
from app.core.tools.approvals import args_fingerprint as fingerprint_args
from app.store._db import write_tx
from app.store.models import (
    AllowRule,
    ApprovalDecision,
    ApprovalRecord,
    ApprovalScope,
)

__all__ = [
    "add_rule",
    "fingerprint_args",
    "is_allowed",
    "list_records",
    "list_rules",
    "record",
    "revoke",
]


def _check(value: str, allowed: tuple[str, ...], what: str) -> None:
    if value not in allowed:
        raise UserError(f"{what} must be one of {', '.join(allowed)}, not {value!r}")


def record(
    db: sqlite_utils.Database,
    thread_id: str | None,
    tool: str,
    args_fingerprint: str,
    decision: str,
    scope: str,
    reason: str | None,
    at: float | None,
    rule: str | None = None,
) -> ApprovalRecord:
    """Append one decision to the audit log and return it."""
    _check(decision, get_args(ApprovalDecision), "decision")
    _check(scope, get_args(ApprovalScope), "scope")
    fp = args_fingerprint.lower()
    if len(fp) != 64 or any(c not in "0123456789abcdef" for c in fp):
        raise UserError("args_fingerprint must be a SHA-256 hex digest (see fingerprint_args)")
    when = time.time() if at is None else at
    with write_tx(db) as conn:
        cur = conn.execute(
            "INSERT INTO approval_log (time, thread_id, tool, args_fingerprint, decision, scope, "
            "reason, rule) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (when, thread_id, tool, fp, decision, scope, reason, rule),
        )
        rowid = cur.lastrowid
    assert rowid is not None
    return ApprovalRecord(
        rowid,
        when,
        thread_id,
        tool,
        fp,
        cast(ApprovalDecision, decision),
        cast(ApprovalScope, scope),
        reason,
        rule,
    )


def list_records(
    db: sqlite_utils.Database, thread_id: str | None, tool: str | None, limit: int
) -> list[ApprovalRecord]:
    """Return audit entries, newest first, optionally only of one thread and/or tool."""
    where, params = [], []
    if thread_id is not None:
        where.append("thread_id = ?")
        params.append(thread_id)
    if tool is not None:
        where.append("tool = ?")
        params.append(tool)
    sql = (
        "SELECT id, time, thread_id, tool, args_fingerprint, decision, scope, reason, rule "
        "FROM approval_log"
    )
    if where:
        sql += " WHERE " + " AND ".join(where)
    rows = db.conn.execute(sql + " ORDER BY time DESC, id DESC LIMIT ?", (*params, limit))
    return [ApprovalRecord(*row) for row in rows]


_COLUMNS = "SELECT id, tool, thread_id, created_at, agent FROM always_allow"


def _rule(
    conn: sqlite3.Connection, tool: str, thread_id: str | None, agent: str
) -> AllowRule | None:
    row = conn.execute(
        f"{_COLUMNS} WHERE tool = ? AND ifnull(thread_id, '') = ifnull(?, '') AND agent = ?",
        (tool, thread_id, agent),
    ).fetchone()
    return AllowRule(*row) if row else None


def _agent(thread_id: str | None, agent: str) -> str:
    """The agent a rule is kept for: a rule of every thread covers every agent ('')."""
    return agent if thread_id is not None else ""


def add_rule(
    db: sqlite_utils.Database, tool: str, thread_id: str | None, agent: str = ""
) -> AllowRule:
    """Always allow ``tool`` in ``thread_id`` when ``agent`` calls it (a delegate's name; ``""``
    the thread's own agent), or everywhere for every agent when ``thread_id`` is ``None``;
    idempotent."""
    if not tool:
        raise UserError("an always-allow rule needs a tool name")
    agent = _agent(thread_id, agent)
    with write_tx(db) as conn:
        conn.execute(
            "INSERT OR IGNORE INTO always_allow (tool, thread_id, created_at, agent) "
            "VALUES (?, ?, ?, ?)",
            (tool, thread_id, time.time(), agent),
        )
        rule = _rule(conn, tool, thread_id, agent)
    assert rule is not None
    return rule


def list_rules(
    db: sqlite_utils.Database, thread_id: str | None, include_global: bool
) -> list[AllowRule]:
    """Return rules: all of them when ``thread_id`` is None, else the thread's (plus the
    global ones when ``include_global``)."""
    sql = _COLUMNS
    params: tuple[Any, ...] = ()
    if thread_id is not None:
        sql += " WHERE thread_id = ?" + (" OR thread_id IS NULL" if include_global else "")
        params = (thread_id,)
    return [AllowRule(*row) for row in db.conn.execute(sql + " ORDER BY tool, id", params)]


def revoke(db: sqlite_utils.Database, tool: str, thread_id: str | None, agent: str = "") -> bool:
    """Remove the rule for ``tool`` in ``thread_id`` for ``agent`` (the global one when
    ``thread_id`` is ``None``); return whether there was one."""
    with write_tx(db) as conn:
        cur = conn.execute(
            "DELETE FROM always_allow WHERE tool = ? AND ifnull(thread_id, '') = ifnull(?, '') "
            "AND agent = ?",
            (tool, thread_id, _agent(thread_id, agent)),
        )
        return cur.rowcount > 0


def is_allowed(
    db: sqlite_utils.Database, tool: str, thread_id: str | None, agent: str = ""
) -> bool:
    """Whether ``tool`` may run without asking in ``thread_id`` when ``agent`` calls it: a
    global rule covers every agent, a thread's rule only the agent it was given for."""
    row = db.conn.execute(
        "SELECT 1 FROM always_allow WHERE tool = ? "
        "AND (thread_id IS NULL OR (thread_id = ? AND agent = ?))",
        (tool, thread_id, agent),
    ).fetchone()
    return row is not None
