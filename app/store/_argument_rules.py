"""Argument-scoped "always allow" rules (run on the store thread): "write_file inside a
folder", "fetch_url for a host", "this tool when argument X is V"."""

from __future__ import annotations

import time

import sqlite_utils
from pydantic import ValidationError

from app.core.errors import UserError
from app.core.tools.argument_rules import ArgumentRule
from app.store._db import write_tx
from app.store.models import StoredArgumentRule

__all__ = ["add", "list_rules", "revoke"]

_COLUMNS = "id, tool, kind, argument, value, thread_id, created_at"


def _read(row: tuple[object, ...]) -> StoredArgumentRule | None:
    rowid, tool, kind, argument, value, thread_id, created = row
    try:
        rule = ArgumentRule.model_validate(
            {
                "tool": tool,
                "kind": kind,
                "argument": argument,
                "value": value,
                "thread_id": thread_id,
            }
        )
    except ValidationError:
        return None  # a row this version cannot read allows nothing
    return StoredArgumentRule(int(str(rowid)), rule, float(str(created)))


def add(db: sqlite_utils.Database, rule: ArgumentRule) -> StoredArgumentRule:
    """Keep ``rule``; adding the same rule again returns the kept one."""
    with write_tx(db) as conn:
        conn.execute(
            "INSERT OR IGNORE INTO argument_rules (tool, kind, argument, value, thread_id, "
            "created_at) VALUES (?, ?, ?, ?, ?, ?)",
            (rule.tool, rule.kind, rule.argument, rule.value, rule.thread_id, time.time()),
        )
        row = conn.execute(
            f"SELECT {_COLUMNS} FROM argument_rules WHERE tool = ? AND kind = ? AND argument = ? "
            "AND value = ? AND ifnull(thread_id, '') = ifnull(?, '')",
            (rule.tool, rule.kind, rule.argument, rule.value, rule.thread_id),
        ).fetchone()
    kept = _read(tuple(row)) if row else None
    if kept is None:
        raise UserError("the rule could not be kept")
    return kept


def list_rules(db: sqlite_utils.Database, tool: str | None) -> list[StoredArgumentRule]:
    """Every kept rule (or those of ``tool``), by tool and age."""
    sql = f"SELECT {_COLUMNS} FROM argument_rules"
    params: tuple[str, ...] = ()
    if tool is not None:
        sql += " WHERE tool = ?"
        params = (tool,)
    rows = db.conn.execute(sql + " ORDER BY tool, id", params).fetchall()
    return [r for r in (_read(tuple(row)) for row in rows) if r is not None]


def revoke(db: sqlite_utils.Database, rule_id: int) -> bool:
    """Remove the rule with row id ``rule_id``; return whether there was one."""
    with write_tx(db) as conn:
        return conn.execute("DELETE FROM argument_rules WHERE id = ?", (rule_id,)).rowcount > 0
