"""The store's own check: SQLite's, the search index's, and every stored row read back."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable
from typing import Any

import sqlite_utils

from app.core.state.interrupt import Interrupt
from app.core.state.serde import load_message, load_state
from app.store._db import flush_index, read_only_reason

__all__ = ["check"]

_LIMIT = 100


def _unreadable(
    rows: Iterable[tuple[Any, ...]], load: Callable[[str], object], describe: Callable[..., str]
) -> Iterable[str]:
    for *key, raw in rows:
        try:
            load(raw.decode("utf-8") if isinstance(raw, bytes) else str(raw))
        except ValueError:  # UnicodeDecodeError, DecodeError and JSON errors alike
            yield describe(*key)


def check(db: sqlite_utils.Database) -> list[str]:
    """Return one sentence per problem found (at most about a hundred); empty when sound."""
    conn = db.conn
    flush_index(db)  # queued entries are not in the index yet: apply them first
    problems = [
        f"SQLite reports: {row[0]}"
        for row in conn.execute(f"PRAGMA integrity_check({_LIMIT})")
        if row[0] != "ok"
    ]
    try:
        if read_only_reason(db) is None:  # FTS5 runs its check as a write statement
            conn.execute(
                "INSERT INTO messages_fts (messages_fts, rank) VALUES ('integrity-check', 1)"
            )
    except sqlite3.DatabaseError as exc:
        problems.append(f"The search index does not match the messages ({exc}).")
    try:
        if read_only_reason(db) is None:
            conn.execute(
                "INSERT INTO memories_fts (memories_fts, rank) VALUES ('integrity-check', 1)"
            )
    except sqlite3.DatabaseError as exc:
        problems.append(f"The memories' word index does not match the memories ({exc}).")
    problems += _unreadable(
        conn.execute(
            "SELECT thread_id, message_id, CAST(body AS BLOB) FROM messages ORDER BY thread_id, id"
        ),
        load_message,
        lambda t, m: f"Message {m!r} of thread {t} is damaged and cannot be read.",
    )
    problems += _unreadable(
        conn.execute("SELECT thread_id, checkpoint_id, CAST(state AS BLOB) FROM checkpoints"),
        json.loads,  # a subclass's state has fields AgentState does not know
        lambda t, c: f"Checkpoint {c} of thread {t} is damaged and cannot be read.",
    )
    problems += _unreadable(
        conn.execute("SELECT thread_id, ordinal, CAST(body AS BLOB) FROM pending_interrupts"),
        lambda raw: load_state(raw, Interrupt),
        lambda t, n: f"Pending question {n} of thread {t} is damaged and cannot be read.",
    )
    problems += _unreadable(
        conn.execute("SELECT id, CAST(title AS BLOB) FROM threads"),
        lambda raw: None,
        lambda t: f"The title of thread {t} is damaged.",
    )
    return problems[:_LIMIT]
