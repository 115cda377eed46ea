"""Argument-scoped "always allow" rules (run on the store thread): "write_file inside a
folder", "fetch_url for a host", "this tool when argument X is V", each for every agent or
for one (kept by the agent's id, read back with its name as it is now)."""

from __future__ import annotations

import sqlite3
import time

import sqlite_utils
from pydantic import ValidationError

from app.core.errors import UserError
from app.core.tools.argument_rules import ArgumentRule
from app.store._agents import name_key
from app.store._db import write_tx
from app.store.models import StoredArgumentRule

__all__ = ["add", "list_rules", "revoke"]

_SELECT = (
    "SELECT r.id, r.tool, r.kind, r.argument, r.value, r.thread_id, r.created_at, "
    "r.agent_id, a.name FROM argument_rules r LEFT JOIN agents a ON a.id = r.agent_id"
)


def _read(row: tuple[object, ...]) -> StoredArgumentRule | None:
    rowid, tool, kind, argument, value, thread_id, created, agent_id, agent = row
    if agent_id is not None and agent is None:
        return None  # the agent is gone: its rule allows nothing
    try:
        rule = ArgumentRule.model_validate(
            {
                "tool": tool,
                "kind": kind,
                "argument": argument,
                "value": value,
                "thread_id": thread_id,
                "agent": agent,
            }
        )
    except ValidationError:
        return None  # a row this version cannot read allows nothing
    return StoredArgumentRule(
        int(str(rowid)), rule, float(str(created)), None if agent_id is None else str(agent_id)
    )


def _agent_id(conn: sqlite3.Connection, name: str | None) -> str | None:
    if name is None:
        return None
    row = conn.execute("SELECT id FROM agents WHERE name_key = ?", (name_key(name),)).fetchone()
    if row is None:
        raise UserError(f"there is no agent called {name!r} to keep the rule for")
    return str(row[0])


def add(db: sqlite_utils.Database, rule: ArgumentRule) -> StoredArgumentRule:
    """Keep ``rule`` (for its agent, when it names one); adding the same rule again returns
    the kept one. :class:`UserError` when the agent it names is not there."""
    with write_tx(db) as conn:
        agent_id = _agent_id(conn, rule.agent)
        conn.execute(
            "INSERT OR IGNORE INTO argument_rules (tool, kind, argument, value, thread_id, "
            "agent_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                rule.tool,
                rule.kind,
                rule.argument,
                rule.value,
                rule.thread_id,
                agent_id,
                time.time(),
            ),
        )
        row = conn.execute(
            f"{_SELECT} WHERE r.tool = ? AND r.kind = ? AND r.argument = ? AND r.value = ? "
            "AND ifnull(r.thread_id, '') = ifnull(?, '') "
            "AND ifnull(r.agent_id, '') = ifnull(?, '')",
            (rule.tool, rule.kind, rule.argument, rule.value, rule.thread_id, agent_id),
        ).fetchone()
    kept = _read(tuple(row)) if row else None
    if kept is None:
        raise UserError("the rule could not be kept")
    return kept


def list_rules(
    db: sqlite_utils.Database, tool: str | None, agent_id: str | None = None
) -> list[StoredArgumentRule]:
    """Every kept rule (or those of ``tool``, or of the agent ``agent_id``), by tool and age."""
    where: list[str] = []
    params: list[str] = []
    if tool is not None:
        where.append("r.tool = ?")
        params.append(tool)
    if agent_id is not None:
        where.append("r.agent_id = ?")
        params.append(agent_id)
    sql = _SELECT + (" WHERE " + " AND ".join(where) if where else "")
    rows = db.conn.execute(sql + " ORDER BY r.tool, r.id", params).fetchall()
    return [r for r in (_read(tuple(row)) for row in rows) if r is not None]


def revoke(db: sqlite_utils.Database, rule_id: int) -> bool:
    """Remove the rule with row id ``rule_id``; return whether there was one."""
    with write_tx(db) as conn:
        return conn.execute("DELETE FROM argument_rules WHERE id = ?", (rule_id,)).rowcount > 0
