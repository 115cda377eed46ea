"""Reads for a window: a thread's messages a page at a time (newest first) and the line of
each thread's last message with how its run stands, for the sidebar."""

from __future__ import annotations

from typing import Any

import sqlite_utils

from app.core.state.serde import load_messages
from app.store.models import MessagePage, ThreadOverview

__all__ = ["overviews", "read_page"]

_CURRENT = (
    "FROM messages m JOIN threads t ON t.id = m.thread_id AND m.segment = t.head_segment "
    "WHERE m.thread_id = ? AND m.valid_to IS NULL"
)


def read_page(
    db: sqlite_utils.Database, thread_id: str, before: int | None, limit: int
) -> MessagePage:
    """Return up to ``limit`` of the thread's current messages that come before position
    ``before`` (the newest when ``None``), oldest first."""
    sql = f"SELECT m.position, m.body {_CURRENT}"
    params: list[Any] = [thread_id]
    if before is not None:
        sql += " AND m.position < ?"
        params.append(before)
    sql += " ORDER BY m.position DESC LIMIT ?"
    params.append(limit + 1)
    rows = db.conn.execute(sql, params).fetchall()
    more = len(rows) > limit
    rows = rows[:limit]
    rows.reverse()
    bodies = ",".join(r[1] for r in rows)
    messages = load_messages("[" + bodies + "]") if rows else []
    return MessagePage(
        messages=messages,
        first_position=rows[0][0] if rows else before,
        has_more=more,
    )


def overviews(db: sqlite_utils.Database, thread_ids: list[str]) -> dict[str, ThreadOverview]:
    """For each thread: its last message's text (one line) and the saved run status."""
    found: dict[str, ThreadOverview] = {}
    conn = db.conn
    for thread_id in thread_ids:
        row = conn.execute(
            f"SELECT substr(m.text, 1, 300) {_CURRENT} AND m.text != '' "
            "ORDER BY m.position DESC LIMIT 1",
            (thread_id,),
        ).fetchone()
        status = conn.execute(
            "SELECT json_extract(c.state, '$.execution_meta.status') FROM checkpoints c "
            "JOIN threads t ON t.id = c.thread_id AND t.head_seq = c.seq WHERE c.thread_id = ?",
            (thread_id,),
        ).fetchone()
        line = " ".join((row[0] if row else "").split())
        found[thread_id] = ThreadOverview(
            last_line=line, run_status=(status[0] if status and status[0] else "idle")
        )
    return found
