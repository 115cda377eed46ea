"""Keeping the full-text index in step with the messages, in batches.

Indexing every step on its own would write a new FTS5 segment per step, more than all the
other rows of the step together. Instead a step appends ``(row_id, op)`` to ``fts_queue``
(one small row; the text is read from the immutable message row later), and the queue is
applied in one go: before every search, when it grows past :data:`BATCH`, before a thread is
deleted, and when the store opens or closes. A version added and closed again between two
flushes (a streamed reply replaced step after step) never reaches the index at all.
"""

from __future__ import annotations

import sqlite3

__all__ = [
    "BATCH",
    "enqueue_new",
    "enqueue_removed",
    "enqueue_segment_removed",
    "flush",
    "maybe_flush",
    "pending",
    "unindex_now",
]

BATCH = 256
"""Apply the queue inside a write once it holds this many entries."""

_INSERT, _DELETE = 1, 0


def enqueue_new(conn: sqlite3.Connection, after_id: int) -> None:
    """Queue every message row with text inserted after row ``after_id`` for indexing."""
    conn.execute(
        "INSERT INTO fts_queue (row_id, op) SELECT id, ? FROM messages WHERE id > ? AND text != ''",
        (_INSERT, after_id),
    )


def enqueue_removed(conn: sqlite3.Connection, row_ids: list[int]) -> None:
    """Queue message rows (that have text) for removal from the index."""
    conn.executemany(
        "INSERT INTO fts_queue (row_id, op) VALUES (?, ?)", ((r, _DELETE) for r in row_ids)
    )


def enqueue_segment_removed(conn: sqlite3.Connection, thread_id: str, segment: int) -> None:
    """Queue the current rows of a thread's segment for removal (a new segment replaces it)."""
    conn.execute(
        "INSERT INTO fts_queue (row_id, op) SELECT id, ? FROM messages WHERE thread_id = ? "
        "AND segment = ? AND valid_to IS NULL AND text != ''",
        (_DELETE, thread_id, segment),
    )


def flush(conn: sqlite3.Connection) -> None:
    """Apply the whole queue to the index (inside the caller's write transaction)."""
    top = conn.execute("SELECT max(qid) FROM fts_queue").fetchone()[0]
    if top is None:
        return
    # A row both added and removed since the last flush is skipped: it was never indexed.
    conn.execute(
        "INSERT INTO messages_fts (messages_fts, rowid, text) "
        "SELECT CASE q.op WHEN 0 THEN 'delete' END, q.row_id, m.text "
        "FROM fts_queue q JOIN messages m ON m.id = q.row_id "
        "WHERE q.qid <= ? AND NOT EXISTS (SELECT 1 FROM fts_queue o WHERE o.row_id = q.row_id "
        "AND o.qid <= ? AND o.op != q.op) ORDER BY q.qid",
        (top, top),
    )
    conn.execute("DELETE FROM fts_queue WHERE qid <= ?", (top,))


def pending(conn: sqlite3.Connection) -> int:
    """How many queue entries wait (cheap: two primary-key lookups)."""
    low, high = conn.execute("SELECT min(qid), max(qid) FROM fts_queue").fetchone()
    return 0 if low is None else int(high - low + 1)


def maybe_flush(conn: sqlite3.Connection) -> None:
    """Apply the queue if it has grown past :data:`BATCH` entries."""
    if pending(conn) >= BATCH:
        flush(conn)


def unindex_now(conn: sqlite3.Connection, thread_id: str, segment: int) -> None:
    """Remove a thread's current rows from the index right away (before deleting them)."""
    flush(conn)
    conn.execute(
        "INSERT INTO messages_fts (messages_fts, rowid, text) SELECT 'delete', id, text "
        "FROM messages WHERE thread_id = ? AND segment = ? AND valid_to IS NULL AND text != ''",
        (thread_id, segment),
    )
